package org.shmav.cli;

import org.shmav.AddrFormat;
import org.shmav.AvType;

/**
 * The short names the CLI uses for AV types ({@code table}, {@code map}) and address formats
 * ({@code in}, {@code in6}, {@code str}, {@code efa}, ..., {@code opaque}), in both directions, so that what {@code ls} prints is what
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
        str(AddrFormat.ADDR_STR),
        ib(AddrFormat.SOCKADDR_IB),
        psmx(AddrFormat.ADDR_PSMX),
        psmx2(AddrFormat.ADDR_PSMX2),
        ib_ud(AddrFormat.ADDR_IB_UD),
        efa(AddrFormat.ADDR_EFA),
        psmx3(AddrFormat.ADDR_PSMX3),
        opx(AddrFormat.ADDR_OPX),
        cxi(AddrFormat.ADDR_CXI),
        /** FI_FORMAT_UNSPEC: opaque bytes, with --addr-len or --max-addr-len. */
        opaque(AddrFormat.FORMAT_UNSPEC);

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
