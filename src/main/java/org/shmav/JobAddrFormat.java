package org.shmav;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * The address format of a job's AV, which every rank of the job must agree on: the AV is created with
 * it (by avrun, or by each node's local rank 0) and every rank opens it with it. A job chooses it with
 * {@value #ENV} (avrun: {@code --addr-format}, which it passes on to its ranks); the default is
 * {@code in} (FI_SOCKADDR_IN).
 *
 * <p>Its text, as {@value #ENV} and {@code --addr-format} take it and {@link #toString()} writes it, uses
 * the CLI's names ({@code shmav create --format}): {@code in}, {@code in6}, {@code str}, {@code ib},
 * {@code psmx}, {@code psmx2}, {@code ib_ud}, {@code efa}, {@code psmx3}, {@code opx}, {@code cxi};
 * {@code opaque:N} for FI_FORMAT_UNSPEC addresses of N bytes each, {@code opaque:max:N} for ones of up
 * to N bytes each (UCX worker addresses), N in 1..{@value AddrFormat#MAX_OPAQUE_LEN}. libfabric's
 * names ({@code FI_SOCKADDR_IN6}, ...) are taken too.
 *
 * @param format  the address format
 * @param addrLen bytes of one address; for {@code opaque:max:N}, the most
 * @param varying whether opaque addresses have lengths of their own (FORMAT_UNSPEC only)
 */
public record JobAddrFormat(AddrFormat format, int addrLen, boolean varying)
{
    /** Environment variable: the job's address format, e.g. {@code in6} or {@code opaque:max:1024} (default {@code in}). */
    public static final String ENV = "SHMAV_ADDR_FORMAT";

    /** FI_SOCKADDR_IN, the default. */
    public static final JobAddrFormat IN = of(AddrFormat.SOCKADDR_IN);
    /** FI_SOCKADDR_IN6. */
    public static final JobAddrFormat IN6 = of(AddrFormat.SOCKADDR_IN6);

    private static final String OPAQUE = "opaque";
    private static final String NAMES = "in, in6, str, ib, psmx, psmx2, ib_ud, efa, psmx3, opx, cxi, opaque:N or opaque:max:N " +
        "(N in 1.." + AddrFormat.MAX_OPAQUE_LEN + ")";

    /**
     * Checks the three against each other.
     *
     * @param format  the address format
     * @param addrLen bytes of one address; for varying opaque addresses, the most
     * @param varying whether opaque addresses have lengths of their own
     * @throws IllegalArgumentException for a format an AV cannot store, FORMAT_UNSPEC without a length in
     *                                  1..{@value AddrFormat#MAX_OPAQUE_LEN}, or another format with a length
     *                                  of its own or {@code varying}
     */
    public JobAddrFormat
    {
        if (format == null || !format.supported())
        {
            throw new IllegalArgumentException("an AV cannot store " + (format == null ? "null" : format.fiName()) +
                " addresses; job address formats: " + NAMES);
        }
        if (format == AddrFormat.FORMAT_UNSPEC && (addrLen < 1 || addrLen > AddrFormat.MAX_OPAQUE_LEN))
        {
            throw new IllegalArgumentException("opaque (FI_FORMAT_UNSPEC) addresses of " + (varying ? "up to " : "") + addrLen +
                " bytes: the length must be 1.." + AddrFormat.MAX_OPAQUE_LEN);
        }
        if (format != AddrFormat.FORMAT_UNSPEC && (varying || addrLen != format.addrlen()))
        {
            throw new IllegalArgumentException(format.fiName() + " addresses are " + format.addrlen() + " bytes, not " +
                (varying ? "up to " : "") + addrLen + ": only opaque (FI_FORMAT_UNSPEC) addresses take a length of the job's");
        }
    }

    /**
     * A format with a length of its own (every format but FORMAT_UNSPEC).
     *
     * @param format the format
     * @return the job's format
     */
    public static JobAddrFormat of(final AddrFormat format)
    {
        return new JobAddrFormat(format, format == null ? 0 : format.addrlen(), false);
    }

    /**
     * Opaque addresses of one length.
     *
     * @param addrLen bytes of every address, 1..{@value AddrFormat#MAX_OPAQUE_LEN}
     * @return the job's format
     */
    public static JobAddrFormat opaque(final int addrLen)
    {
        return new JobAddrFormat(AddrFormat.FORMAT_UNSPEC, addrLen, false);
    }

    /**
     * Opaque addresses of lengths of their own (UCX worker addresses).
     *
     * @param maxAddrLen the most bytes of one address, 1..{@value AddrFormat#MAX_OPAQUE_LEN}
     * @return the job's format
     */
    public static JobAddrFormat opaqueUpTo(final int maxAddrLen)
    {
        return new JobAddrFormat(AddrFormat.FORMAT_UNSPEC, maxAddrLen, true);
    }

    /**
     * The format a text names (see the class comment).
     *
     * @param text e.g. {@code in6}, {@code efa}, {@code opaque:248}, {@code opaque:max:1024}
     * @return the format
     * @throws IllegalArgumentException for a text that names none, with the names there are
     */
    public static JobAddrFormat parse(final String text)
    {
        final String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        try
        {
            if (t.startsWith(OPAQUE + ":max:"))
            {
                return opaqueUpTo(Integer.parseInt(t.substring(OPAQUE.length() + 5)));
            }
            if (t.startsWith(OPAQUE + ":"))
            {
                return opaque(Integer.parseInt(t.substring(OPAQUE.length() + 1)));
            }
        }
        catch (final NumberFormatException e)
        {
            // named below
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException("'" + text + "' is not an address format: " + e.getMessage() + "; use one of " + NAMES, e);
        }
        for (final AddrFormat f : AddrFormat.values())
        {
            if (f.supported() && f != AddrFormat.FORMAT_UNSPEC && (t.equals(shortName(f)) || t.equals(f.fiName().toLowerCase(Locale.ROOT))))
            {
                return of(f);
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not an address format; use one of " + NAMES +
            (t.equals(OPAQUE) || t.equals("fi_format_unspec") ? " (opaque addresses need their length)" : ""));
    }

    /**
     * The job's format from {@value #ENV} in {@code env}; {@link #IN} when it is not set.
     *
     * @param env the process's environment
     * @return the format
     * @throws IllegalStateException when the variable names no format (the message says which do)
     */
    public static JobAddrFormat fromEnvironment(final Map<String, String> env)
    {
        final String text = env.get(ENV);
        if (text == null || text.isBlank())
        {
            return IN;
        }
        try
        {
            return parse(text);
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalStateException(ENV + "=" + e.getMessage() + "; every rank of a job must be given the same", e);
        }
    }

    /**
     * The attributes of the domain through which a rank opens the job's AV.
     *
     * @param directory the directory of the job's AV
     * @return the format's attributes with that directory
     */
    public DomainAttr domainAttr(final Path directory)
    {
        final DomainAttr.Builder b = DomainAttr.builder().addrFormat(format).shmDirectory(directory);
        if (format == AddrFormat.FORMAT_UNSPEC)
        {
            return (varying ? b.maxAddrLen(addrLen) : b.addrLen(addrLen)).build();
        }
        return b.build();
    }

    /** {@return whether addresses are socket addresses ({@code in}, {@code in6}), which {@link java.net.InetSocketAddress} converts} */
    public boolean socketAddresses()
    {
        return format == AddrFormat.SOCKADDR_IN || format == AddrFormat.SOCKADDR_IN6;
    }

    /** {@return the text {@value #ENV} takes: {@code in6}, {@code opaque:248}, {@code opaque:max:1024}} */
    @Override
    public String toString()
    {
        if (format == AddrFormat.FORMAT_UNSPEC)
        {
            return OPAQUE + (varying ? ":max:" : ":") + addrLen;
        }
        return shortName(format);
    }

    /** {@return as messages show it: {@code FI_SOCKADDR_IN6}, {@code FI_FORMAT_UNSPEC (up to 1024 bytes)}} */
    public String describe()
    {
        return format.fiName() + (format == AddrFormat.FORMAT_UNSPEC ? " (" + (varying ? "up to " : "") + addrLen + " bytes)" :
            format == AddrFormat.ADDR_STR ? "" : " (" + addrLen + " bytes)");
    }

    /** The CLI's name: libfabric's without {@code FI_SOCKADDR_} or {@code FI_ADDR_}, in lower case. */
    private static String shortName(final AddrFormat f)
    {
        return f.name().replaceFirst("^(SOCKADDR|ADDR)_", "").toLowerCase(Locale.ROOT);
    }
}
