package org.shmav;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.shmav.it.TestDir;

/**
 * The contract on named AVs: every AV a test opens is a fresh named AV in a fresh directory under
 * /dev/shm, deleted after the test. Named-only behaviour is in {@link NamedAvTest}.
 */
class SharedAvContractTest extends AddressVectorContractTest
{
    private final AtomicInteger names = new AtomicInteger();
    private Path dir;

    @BeforeEach
    void createDirectory()
    {
        dir = TestDir.createInShm("shmav-contract-");
    }

    @AfterEach
    void deleteDirectory()
    {
        TestDir.delete(dir);
    }

    @Override
    protected DomainAttr.Builder domainAttr()
    {
        return DomainAttr.builder().shmDirectory(dir);
    }

    @Override
    protected AddressVector openAv(final Domain domain, final AvAttr.Builder attr)
    {
        final AddressVector av = domain.openAv(attr.name("contract-" + names.incrementAndGet()).build());
        if (av.attr().name() == null || !java.nio.file.Files.exists(dir.resolve(av.attr().name())))
        {
            av.close();
            throw new AssertionError("a named AV must have a file in " + dir);
        }
        return av;
    }
}
