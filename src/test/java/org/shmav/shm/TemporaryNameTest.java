package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.ShmDomain;

/**
 * A creator builds its AV under a temporary name that may be taken: by another thread of this JVM
 * creating the same AV in the same nanosecond (the name's number was a time stamp, and eight threads
 * racing to create one AV failed with FI_EIO under load), or by a creator of the same pid in another
 * pid namespace. It takes another name and never touches the file under the taken one.
 */
class TemporaryNameTest
{
    private static final byte[] THEIRS = "another creator's file".getBytes(StandardCharsets.US_ASCII);

    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-tmpname-");
    private final LongSupplier random = SharedAvFile.temporaryNumbers;

    @AfterEach
    void restoreTheNumbers()
    {
        SharedAvFile.temporaryNumbers = random;
    }

    private Path plant(final long number) throws Exception
    {
        final Path taken = shm.dir().resolve(SharedAvFile.TEMPORARY_PREFIX + "av1." + Processes.SELF_PID + "." +
            Long.toHexString(number));
        Files.write(taken, THEIRS);
        return taken;
    }

    private List<Path> temporaryFiles() throws Exception
    {
        try (Stream<Path> files = Files.list(shm.dir()))
        {
            return files.filter(f -> f.getFileName().toString().startsWith(SharedAvFile.TEMPORARY_PREFIX)).toList();
        }
    }

    @Test
    void shouldBuildUnderAnotherNameWhenItsNameIsTakenAndLeaveTheOtherFileAlone() throws Exception
    {
        final Path taken = plant(0x2a);
        final AtomicLong next = new AtomicLong(0x2a);
        SharedAvFile.temporaryNumbers = next::getAndIncrement;
        try (AddressVector av = shm.domain().openAv(AvAttr.builder().name("av1").count(16).createOnly(true).build()))
        {
            assertEquals(0, av.count());
        }
        assertEquals(0x2c, next.get(), "the taken name, then a free one");
        assertTrue(Files.isRegularFile(shm.dir().resolve("av1")), "the AV was published");
        assertEquals(List.of(taken), temporaryFiles(), "its own temporary name removed, the other creator's kept");
        assertEquals(new String(THEIRS, StandardCharsets.US_ASCII),
            Files.readString(taken, StandardCharsets.US_ASCII), "the other creator's file untouched");
    }

    @Test
    void shouldSayWhatToDoWhenEveryNameItTriesIsTaken() throws Exception
    {
        final Path taken = plant(0x2a);
        SharedAvFile.temporaryNumbers = () -> 0x2a;
        final FabricException e = assertThrows(FabricException.class,
            () -> shm.domain().openAv(AvAttr.builder().name("av1").count(16).createOnly(true).build()));
        assertEquals(FiErrno.EIO, e.errno());
        assertTrue(e.getMessage().contains(SharedAvFile.TEMPORARY_NAME_TRIES + " temporary names in a row were taken") &&
            e.getMessage().contains("shmav gc"), e.getMessage());
        assertEquals(List.of(taken), temporaryFiles(), "nothing made, nothing removed");
        assertTrue(Files.notExists(shm.dir().resolve("av1")));
    }
}
