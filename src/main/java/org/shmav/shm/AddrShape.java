package org.shmav.shm;

import org.shmav.AddrFormat;

/**
 * What one AV's addresses are: their format, the bytes of one (the most bytes of one when lengths
 * vary) and whether lengths vary. The header records all three (shm-layout.md, Header) and every
 * opener must ask for the same. Lengths vary for FI_ADDR_STR (each string's own, NUL included) and for
 * FORMAT_UNSPEC opened with a maximum length; every other format is fixed.
 *
 * @param format  the address format
 * @param addrLen bytes of one address, or the most when {@code varying}
 * @param varying whether FORMAT_UNSPEC addresses have lengths of their own (header field {@code addrLenVarying})
 */
public record AddrShape(AddrFormat format, int addrLen, boolean varying)
{
    /** The shape of a fixed or string format, whose length is the format's. */
    public static AddrShape of(final AddrFormat format)
    {
        return new AddrShape(format, format.addrlen(), false);
    }

    /** The shape of the addresses of a domain opened with {@code domain}. */
    public static AddrShape of(final org.shmav.DomainAttr domain)
    {
        return new AddrShape(domain.addrFormat(), domain.addrLen(), domain.varyingAddrLen());
    }

    /** Whether a region may hold this shape: a storable format with its own length, or FORMAT_UNSPEC of 1 to 4096 bytes. */
    public boolean valid()
    {
        if (format == null || !format.supported())
        {
            return false;
        }
        if (format == AddrFormat.FORMAT_UNSPEC)
        {
            return addrLen >= 1 && addrLen <= AddrFormat.MAX_OPAQUE_LEN;
        }
        return !varying && addrLen == format.addrlen();
    }

    /** Whether each address carries its own length: FI_ADDR_STR, or varying FORMAT_UNSPEC. */
    public boolean ownLengths()
    {
        return varying || format == AddrFormat.ADDR_STR;
    }

    /** As an opener's message shows it: {@code FI_SOCKADDR_IN}, {@code FI_FORMAT_UNSPEC/248}, {@code FI_FORMAT_UNSPEC/<=1024}. */
    public String describe()
    {
        return format == AddrFormat.FORMAT_UNSPEC ? format.fiName() + "/" + (varying ? "<=" : "") + addrLen + " bytes"
            : format.fiName();
    }
}
