package org.shmav.job;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@code NothingRecordWriter DIR NAME PARTICIPANT SLOTS}: joins job file NAME in DIR as PARTICIPANT and
 * writes its record saying it has no address, as a rank that waits for the job without one does. Prints
 * "written", or the error and exits 3.
 */
public final class NothingRecordWriter
{
    private NothingRecordWriter()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int participant = Integer.parseInt(args[2]);
        try (JobFile file = JobFile.open(Path.of(args[0]), args[1], participant, Integer.parseInt(args[3])).orElseThrow())
        {
            if (!file.join(System.nanoTime() + 5_000_000_000L))
            {
                throw new IllegalStateException("could not join as participant " + participant);
            }
            NodeRecords.write(file, participant, participant, NodeRecords.NOTHING.getBytes(StandardCharsets.US_ASCII),
                NodeRecords.FAILED);
            System.out.println("written");
        }
        catch (final IOException e)
        {
            System.out.println("cannot write the record: " + e);
            System.exit(3);
        }
    }
}
