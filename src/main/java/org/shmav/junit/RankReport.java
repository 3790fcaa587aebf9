package org.shmav.junit;

import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The failure of one rank as the test JVM reads it back from the report directory: which rank, when,
 * its description and (when it could be serialized) the throwable itself, to become the test's cause.
 * File names: {@code rank-R.failure.txt} and {@code rank-R.failure.ser}.
 */
record RankReport(int rank, FileTime when, String description, Throwable throwable)
{
    private static final String PREFIX = "rank-";
    private static final String DESCRIPTION = ".failure.txt";
    private static final String THROWABLE = ".failure.ser";

    static Path descriptionFile(final Path reports, final String rank)
    {
        return reports.resolve(PREFIX + rank + DESCRIPTION);
    }

    static Path throwableFile(final Path reports, final String rank)
    {
        return reports.resolve(PREFIX + rank + THROWABLE);
    }

    /** Every rank's failure, the earliest first (the one that made the others stop). */
    static List<RankReport> readAll(final Path reports) throws IOException
    {
        final List<RankReport> list = new ArrayList<>();
        try (Stream<Path> files = Files.list(reports))
        {
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                final String name = f.getFileName().toString();
                if (name.startsWith(PREFIX) && name.endsWith(DESCRIPTION))
                {
                    final String rank = name.substring(PREFIX.length(), name.length() - DESCRIPTION.length());
                    list.add(new RankReport(parseRank(rank), Files.getLastModifiedTime(f),
                        Files.readString(f, StandardCharsets.UTF_8), readThrowable(throwableFile(reports, rank))));
                }
            }
        }
        list.sort(Comparator.comparing(RankReport::when).thenComparingInt(RankReport::rank));
        return list;
    }

    private static int parseRank(final String rank)
    {
        try
        {
            return Integer.parseInt(rank);
        }
        catch (final NumberFormatException e)
        {
            return -1;
        }
    }

    private static Throwable readThrowable(final Path file)
    {
        if (!Files.exists(file))
        {
            return null;
        }
        try (InputStream in = Files.newInputStream(file); ObjectInputStream objects = new ObjectInputStream(in))
        {
            return (Throwable)objects.readObject();
        }
        catch (final IOException | ClassNotFoundException | ClassCastException e)
        {
            return null; // the description and the output still say what happened
        }
    }
}
