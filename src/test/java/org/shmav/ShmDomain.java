package org.shmav;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.shmav.it.TestDir;

/**
 * A domain over a fresh directory of /dev/shm for each test, closed and removed after it:
 * {@code @RegisterExtension final ShmDomain shm = new ShmDomain("shmav-named-");}.
 */
public final class ShmDomain implements BeforeEachCallback, AfterEachCallback
{
    private final String prefix;
    private Path dir;
    private Domain domain;

    public ShmDomain(final String prefix)
    {
        this.prefix = prefix;
    }

    /** The test's shm directory, where its named AVs live. */
    public Path dir()
    {
        return dir;
    }

    /** The test's domain over {@link #dir()}. */
    public Domain domain()
    {
        return domain;
    }

    @Override
    public void beforeEach(final ExtensionContext context)
    {
        dir = TestDir.createInShm(prefix);
        domain = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
    }

    @Override
    public void afterEach(final ExtensionContext context)
    {
        try
        {
            domain.close();
        }
        finally
        {
            TestDir.delete(dir);
        }
    }
}
