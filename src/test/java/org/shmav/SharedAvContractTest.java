package org.shmav;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract on named AVs: every AV a test opens is a fresh named AV in a fresh directory under
 * /dev/shm, deleted after the test. Named-only behaviour is in {@link NamedAvTest}.
 */
class SharedAvContractTest extends AddressVectorContractTest
{
    private final AtomicInteger names = new AtomicInteger();
    /** A fresh /dev/shm directory per test, removed after it. */
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-contract-");

    @Override
    protected DomainAttr.Builder domainAttr()
    {
        return DomainAttr.builder().shmDirectory(shm.dir());
    }

    @Override
    protected AddressVector openAv(final Domain domain, final AvAttr.Builder attr)
    {
        final AddressVector av = domain.openAv(attr.name("contract-" + names.incrementAndGet()).build());
        if (av.attr().name() == null || !java.nio.file.Files.exists(shm.dir().resolve(av.attr().name())))
        {
            av.close();
            throw new AssertionError("a named AV must have a file in " + shm.dir());
        }
        return av;
    }
}
