package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.assertErrno;

import java.io.IOException;
import java.nio.file.Files;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The limits a named AV is created within (shm-layout.md, WRITER'S CHECKLIST, Limits): count and
 * maxCount resolved one way, and refused with FI_EINVAL naming the largest value that fits when the
 * AV's file could never be mapped. The CLI runs the same checks (ShmavCliUsageTest); the file system's
 * room is AvLimitsIT's.
 */
class NamedAvLimitsTest
{
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-limits-");

    private AddressVector open(final long count, final long maxCount)
    {
        return shm.domain().openAv(AvAttr.builder().name("av").count(count).maxCount(maxCount).build());
    }

    private void assertRefused(final long count, final long maxCount, final String reason) throws IOException
    {
        final FabricException e = assertErrno(FiErrno.EINVAL, () -> open(count, maxCount).close(),
            "count=" + count + " maxCount=" + maxCount);
        assertTrue(e.getMessage().contains(reason), e.getMessage());
        try (Stream<?> files = Files.list(shm.dir()))
        {
            assertEquals(0, files.count(), "nothing created");
        }
    }

    @Test
    void shouldResolveACountOfZeroAndAMaxCountOfZero()
    {
        try (AddressVector av = open(0, 0))
        {
            assertEquals(1024, av.attr().count());
            assertEquals(AvAttr.DEFAULT_MAX_COUNT, av.attr().maxCount());
        }
        shm.domain().unlinkAv("av");
        try (AddressVector av = open(0, 3))
        {
            assertEquals(3, av.attr().count(), "count 0: 1024, or the maxCount when smaller: never more than maxCount");
            assertEquals(3, av.attr().maxCount());
        }
    }

    @Test
    void shouldRefuseACountAboveTheMaxCount() throws IOException
    {
        assertRefused(8, 4, "count=8 is more than maxCount=4");
    }

    @Test
    void shouldRefuseAMaxCountOutsideTheRange() throws IOException
    {
        assertRefused(4, -1, "maxCount=-1 is negative: use 0 (the default, 4194304) or a positive maxCount");
        assertRefused(4, (1L << 28) + 1, "maxCount=268435457 with count=4 needs over a ");
    }

    /** A growing AV's file holds every segment's two hash areas: 14,911,168 is the largest a count of 4 reaches in 2^31 - 1 bytes. */
    @Test
    void shouldRefuseAMaxCountWhoseFileCouldNeverBeMappedNamingTheLargest() throws IOException
    {
        assertRefused(4, 20_000_000, "at most 14911168 for count=4 (FI_SOCKADDR_IN)");
        assertRefused(4, 14_911_169, "once full, more than the 2147483647 bytes");
        try (AddressVector av = open(4, 14_911_168))
        {
            assertEquals(14_911_168, av.attr().maxCount(), "the largest is accepted");
        }
    }

    @Test
    void shouldRefuseACountWhoseFileCouldNeverBeMappedNamingTheLargest() throws IOException
    {
        assertRefused(30_000_000, 0, "at most 16777216 entries of FI_SOCKADDR_IN");
        assertRefused(16_777_217, 16_777_217, "more than the 2147483647 bytes a named AV's file may have");
        try (Domain strings = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.ADDR_STR).shmDirectory(shm.dir())
            .build()))
        {
            final FabricException e = assertErrno(FiErrno.EINVAL,
                () -> strings.openAv(AvAttr.builder().name("s").count(8_388_609).build()).close());
            assertTrue(e.getMessage().contains("at most 8388608 entries of FI_ADDR_STR"), e.getMessage());
            final FabricException max = assertErrno(FiErrno.EINVAL,
                () -> strings.openAv(AvAttr.builder().name("s").count(4).maxCount(9_000_000).build()).close());
            assertTrue(max.getMessage().contains("at most 8052394 for count=4 (FI_ADDR_STR)"), max.getMessage());
        }
    }
}
