package org.shmav;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.assertErrno;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;


/**
 * {@link FormatsContractTest} on named AVs, each fresh in a fresh directory under /dev/shm; plus what only a
 * named AV does: an opener asking for another format or length is refused, naming both.
 */
class SharedAvFormatsTest extends FormatsContractTest
{
    private final AtomicInteger names = new AtomicInteger();
    /** A fresh /dev/shm directory per test, removed after it. */
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-formats-");

    @Override
    protected DomainAttr.Builder domainAttr()
    {
        return DomainAttr.builder().shmDirectory(shm.dir());
    }

    @Override
    protected AddressVector openAv(final Domain domain, final AvAttr.Builder attr)
    {
        return domain.openAv(attr.name("formats-" + names.incrementAndGet()).build());
    }

    private Domain domain(final AddrFormat format, final int addrLen, final int maxAddrLen)
    {
        final DomainAttr.Builder b = domainAttr().addrFormat(format);
        if (addrLen > 0)
        {
            b.addrLen(addrLen);
        }
        if (maxAddrLen > 0)
        {
            b.maxAddrLen(maxAddrLen);
        }
        return Domain.open(b.build());
    }

    @Test
    void shouldRefuseAnOpenerOfAnotherFormatOrLengthNamingBoth()
    {
        try (Domain creator = domain(AddrFormat.FORMAT_UNSPEC, 0, 1024);
             AddressVector av = creator.openAv(AvAttr.builder().name("ucx").build()))
        {
            assertTrue(av.varyingAddrLen());
            check(domain(AddrFormat.FORMAT_UNSPEC, 1024, 0), "file=FI_FORMAT_UNSPEC/<=1024 bytes",
                "caller=FI_FORMAT_UNSPEC/1024 bytes");
            check(domain(AddrFormat.FORMAT_UNSPEC, 0, 512), "file=FI_FORMAT_UNSPEC/<=1024 bytes",
                "caller=FI_FORMAT_UNSPEC/<=512 bytes");
            check(domain(AddrFormat.ADDR_EFA, 0, 0), "file=FI_FORMAT_UNSPEC/<=1024 bytes", "caller=FI_ADDR_EFA");
        }
        try (Domain creator = domain(AddrFormat.ADDR_EFA, 0, 0);
             AddressVector av = creator.openAv(AvAttr.builder().name("efa").build()))
        {
            check(domain(AddrFormat.ADDR_PSMX3, 0, 0), "file=FI_ADDR_EFA", "caller=FI_ADDR_PSMX3");
            check(domain(AddrFormat.FORMAT_UNSPEC, 32, 0), "file=FI_ADDR_EFA", "caller=FI_FORMAT_UNSPEC/32 bytes");
        }
    }

    private static void check(final Domain opener, final String file, final String caller)
    {
        try (opener)
        {
            final String name = file.contains("EFA") ? "efa" : "ucx";
            final FabricException e = assertErrno(FiErrno.EINVAL,
                () -> opener.openAv(AvAttr.builder().name(name).flags(Fi.READ).build()).close());
            assertTrue(e.getMessage().contains(file) && e.getMessage().contains(caller), e.getMessage());
        }
    }
}
