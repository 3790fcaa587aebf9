package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code Domain.unlinkAv} of an AV that another process removes at the same moment (a job's last rank
 * and the job's cleanup process, which waits 200 ms for that rank and then removes the AV itself):
 * the AV is gone either way, so the answer is true or false, never FI_ENOENT.
 */
class UnlinkRaceTest
{
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-unlink-");

    @Test
    void shouldAnswerFalseNotEnoentWhenTheAvVanishesDuringUnlink() throws Exception
    {
        try (AddressVector av = shm.domain().openAv(AvAttr.builder().type(AvType.TABLE).name("job").count(4).build()))
        {
            av.count(); // the file, written
        }
        final Path file = shm.dir().resolve("job");
        final byte[] image = Files.readAllBytes(file);
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread other = new Thread(() ->
        {
            // The other remover: the file comes (a new one each time, renamed into place: nobody cuts a
            // file another process maps) and goes, as fast as it can.
            final Path next = shm.dir().resolve(".next");
            while (!stop.get())
            {
                try
                {
                    Files.write(next, image);
                    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE);
                    Files.deleteIfExists(file);
                }
                catch (final Exception e)
                {
                    // a collision with the unlink below: go on
                }
            }
        });
        other.start();
        final List<String> failures = new ArrayList<>();
        int removed = 0;
        try
        {
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() - end < 0 && failures.size() < 5)
            {
                try
                {
                    removed += shm.domain().unlinkAv("job") ? 1 : 0;
                }
                catch (final FabricException e)
                {
                    failures.add(e.getMessage());
                }
            }
        }
        finally
        {
            stop.set(true);
            other.join(10_000);
        }
        assertEquals(List.of(), failures, "unlinkAv failed while the AV came and went");
        assertTrue(removed > 0, "the race was not met: no unlink found the file");
    }
}
