package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmav.AvTestSupport.assertErrno;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a handle of a named AV says about the AV, and when openAv says no: {@code attr()} reports the
 * AV as it is (not what the caller asked for), a writer that cannot have an attacher entry is refused
 * at open, and the waits all end a timeout the same way.
 */
class OpenAnswersTest
{
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-open-answers-");

    private AddressVector open(final AvAttr.Builder attr)
    {
        return shm.domain().openAv(attr.build());
    }

    @Test
    void shouldReportTheAvsCapacityMaximumAndFlagsToAnAttachingHandle()
    {
        try (AddressVector creator = open(AvAttr.builder().name("attr").count(4).maxCount(64).rxCtxBits(2)
                 .flags(Fi.SYMMETRIC));
             AddressVector attached = open(AvAttr.builder().name("attr").count(2).rxCtxBits(3));
             AddressVector reader = open(AvAttr.builder().name("attr").flags(Fi.READ)))
        {
            for (final AddressVector av : List.of(creator, attached, reader))
            {
                assertEquals(4, av.attr().count(), "the AV's capacity, not the count asked for");
                assertEquals(64, av.attr().maxCount(), "the maximum the file was created with");
                assertTrue((av.attr().flags() & Fi.SYMMETRIC) != 0, "the AV's own flags: " + av.attr());
            }
            assertEquals(3, attached.attr().rxCtxBits(), "each opener applies its own rx_ctx_bits (fi_av(3))");
            assertEquals(Fi.READ, reader.attr().flags() & Fi.READ, "and its own access");

            for (int i = 0; i < 5; i++)
            {
                creator.insert(new InetSocketAddress("10.0.0." + (i + 1), 5000));
            }
            for (final AddressVector av : List.of(creator, attached, reader))
            {
                assertEquals(8, av.attr().count(), "capacity now: the AV doubled when full");
            }
        }
    }

    @Test
    void shouldAcceptACountUpToTheMaximumAndRefuseOneAboveWithEinval()
    {
        try (AddressVector creator = open(AvAttr.builder().name("counts").count(4).maxCount(16));
             AddressVector smaller = open(AvAttr.builder().name("counts").count(1));
             AddressVector larger = open(AvAttr.builder().name("counts").count(16)))
        {
            assertEquals(4, smaller.attr().count());
            assertEquals(4, larger.attr().count(), "a count is a hint: the AV grows to it when needed");
            final FabricException e = assertErrno(FiErrno.EINVAL, () -> open(AvAttr.builder().name("counts").count(17)).close());
            assertTrue(e.getMessage().contains("grows to at most 16"), e.getMessage());
        }
    }

    @Test
    void shouldRefuseAWriterAtOpenWhenEveryAttacherEntryBelongsToALiveProcess()
    {
        final List<AddressVector> writers = new ArrayList<>();
        try
        {
            writers.add(open(AvAttr.builder().name("busy").count(4)));
            FabricException refused = null;
            while (refused == null && writers.size() <= 2048)
            {
                try
                {
                    writers.add(open(AvAttr.builder().name("busy")));
                }
                catch (final FabricException e)
                {
                    refused = e;
                }
            }
            assertTrue(refused != null, "some open is refused: the AV has a bounded number of attacher entries");
            assertEquals(FiErrno.EBUSY, refused.errno(), refused.getMessage());
            assertEquals("fi_av_open", refused.call());
            assertTrue(refused.getMessage().contains("FI_READ"), "says what still works: " + refused.getMessage());
            // every writer that was let in can write
            writers.get(writers.size() - 1).insert(new InetSocketAddress("10.0.0.1", 1));
            try (AddressVector reader = open(AvAttr.builder().name("busy").flags(Fi.READ)))
            {
                assertEquals(1, reader.count(), "a reader needs no attacher entry");
            }
        }
        finally
        {
            writers.forEach(AddressVector::close);
        }
    }

    @Test
    void shouldEndEveryWaitAtItsTimeoutWithEtimedout()
    {
        try (AddressVector av = open(AvAttr.builder().name("waits").count(4)))
        {
            final FabricException count = assertErrno(FiErrno.ETIMEDOUT, () -> av.awaitCount(1, Duration.ofMillis(20)));
            assertTrue(count.getMessage().contains("count 0 of 1"), count.getMessage());
            assertTrue(av.awaitCount(0, Duration.ZERO), "a count already reached returns at once");
        }
        assertErrno(FiErrno.ETIMEDOUT, () -> shm.domain().awaitAv(AvAttr.builder().name("never").flags(Fi.READ).build(),
            Duration.ofMillis(20)));
    }
}
