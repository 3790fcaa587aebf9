package org.shmav.cli;

import org.shmav.AddrFormat;
import org.shmav.AvType;

/**
 * The short names the CLI uses for AV types ({@code table}, {@code map}) and address formats
 * ({@code in}, {@code in6}, {@code str}), in both directions, so that what {@code ls} prints is what
 * {@code create} accepts.
 */
final class CliNames
{
    private CliNames()
    {
    }

    /** Address formats as {@code create --format} takes them. */
    enum Format
    {
        in(AddrFormat.SOCKADDR_IN),
        in6(AddrFormat.SOCKADDR_IN6),
        str(AddrFormat.ADDR_STR);

        final AddrFormat addrFormat;

        Format(final AddrFormat addrFormat)
        {
            this.addrFormat = addrFormat;
        }
    }

    /** AV types as {@code create --type} takes them. */
    enum Type
    {
        table(AvType.TABLE),
        map(AvType.MAP);

        final AvType avType;

        Type(final AvType avType)
        {
            this.avType = avType;
        }
    }

    static String typeName(final AvType type)
    {
        for (final Type t : Type.values())
        {
            if (t.avType == type)
            {
                return t.name();
            }
        }
        return type.fiName();
    }

    static String formatName(final AddrFormat format)
    {
        for (final Format f : Format.values())
        {
            if (f.addrFormat == format)
            {
                return f.name();
            }
        }
        return format.fiName();
    }
}
