package org.shmav;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.it.TestDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The AV set contract on named AVs in a fresh directory under /dev/shm, plus what only a named AV has:
 * a second handle (as another process would open) and read-only handles.
 */
class SharedAvSetTest extends AvSetContractTest
{
    private Path dir;
    private Domain domain;
    private int names;

    @BeforeEach
    void openDomain() throws IOException
    {
        dir = TestDir.createInShm("avset");
        closeAfter(() -> TestDir.delete(dir)); // registered first, so it runs after every close
        domain = closeAfter(Domain.open(DomainAttr.builder().shmDirectory(dir).build()));
    }

    @Override
    protected AddressVector openAv(final AvAttr.Builder attr)
    {
        return closeAfter(domain.openAv(attr.name("avset-" + names++).build()));
    }

    @Test
    void shouldGiveTheSameAddrOnTwoHandlesOfOneNamedAv()
    {
        final AddressVector writer = closeAfter(domain.openAv(AvAttr.builder().count(16).name("job").build()));
        insert(writer, 0, 5);
        final AddressVector other = closeAfter(domain.openAv(AvAttr.builder().count(16).name("job").build()));
        final AvSet mine = open(writer, range(0, 4).stride(2));
        final AvSet theirs = open(other, AvSetAttr.builder());
        theirs.insert(0);
        theirs.insert(2);
        theirs.insert(4);
        assertArrayEquals(mine.members(), theirs.members());
        assertEquals(mine.addr(), theirs.addr());
        assertErrno(FiErrno.EINVAL, () -> mine.union(theirs)); // one AV, two handles: sets of different AVs
    }

    @Test
    void shouldOpenSetsOnAReadOnlyHandle()
    {
        final AddressVector writer = closeAfter(domain.openAv(AvAttr.builder().count(16).name("ro").build()));
        insert(writer, 0, 3);
        final AddressVector reader = closeAfter(domain.openAv(
            AvAttr.builder().count(16).name("ro").flags(Fi.READ).build()));
        final AvSet universe = open(reader, AvSetAttr.builder().flags(Fi.UNIVERSE));
        assertArrayEquals(new long[] {0, 1, 2}, universe.members());
        insert(writer, 3, 1); // an entry another process adds is valid through this handle too
        universe.insert(3);
        assertEquals(expectedAddr(new long[] {0, 1, 2, 3}), universe.addr());
        assertErrno(FiErrno.EBUSY, reader::close);
    }
}
