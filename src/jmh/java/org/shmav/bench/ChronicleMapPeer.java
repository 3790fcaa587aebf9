package org.shmav.bench;

import java.io.File;
import java.util.Arrays;

import net.openhft.chronicle.map.ChronicleMap;

/**
 * The peer a JVM user would reach for instead of a named AV: a Chronicle Map persisted in /dev/shm,
 * address bytes (16) to index (Long), shared by a writer JVM and a reader JVM.
 *
 * <pre>
 *   ChronicleMapPeer write FILE N     puts N addresses one by one into a new map, timed per chunk
 *   ChronicleMapPeer read FILE N P    opens the existing map and gets every address, P passes
 * </pre>
 *
 * Each side first warms up on a scratch map of its own, so that the timed part runs compiled code.
 * Results are printed as "result NAME VALUE UNIT" lines (medians over chunks or passes). Needs the
 * Chronicle flags on Java 17 (scripts/bench-compare passes them).
 */
public final class ChronicleMapPeer
{
    private static final int CHUNKS = 10;
    private static final int WARMUP = 200_000;

    private ChronicleMapPeer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final File file = new File(args[1]);
        final int n = Integer.parseInt(args[2]);
        final byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++)
        {
            keys[i] = BenchAddresses.bytes(0, i);
        }
        warmUp(file);
        if ("write".equals(args[0]))
        {
            write(file, keys);
        }
        else
        {
            read(file, keys, Integer.parseInt(args[3]));
        }
    }

    private static ChronicleMap<byte[], Long> open(final File file, final int entries) throws Exception
    {
        return ChronicleMap.of(byte[].class, Long.class)
            .name("shmav-bench")
            .constantKeySizeBySample(new byte[BenchAddresses.ADDRLEN])
            .entries(entries)
            .createPersistedTo(file);
    }

    private static void warmUp(final File file) throws Exception
    {
        final File scratch = new File(file.getPath() + ".warmup." + ProcessHandle.current().pid());
        try (ChronicleMap<byte[], Long> map = open(scratch, WARMUP))
        {
            long sum = 0;
            for (int round = 0; round < 3; round++)
            {
                for (int i = 0; i < WARMUP; i++)
                {
                    final byte[] key = BenchAddresses.bytes(7, i);
                    map.put(key, (long)i);
                    sum += map.get(key);
                }
                map.clear();
            }
            if (sum < 0)
            {
                System.out.println(sum);
            }
        }
        finally
        {
            scratch.delete();
        }
    }

    private static void write(final File file, final byte[][] keys) throws Exception
    {
        final int n = keys.length;
        final double[] perChunk = new double[CHUNKS];
        try (ChronicleMap<byte[], Long> map = open(file, n))
        {
            final int chunk = n / CHUNKS;
            for (int c = 0; c < CHUNKS; c++)
            {
                final long t0 = System.nanoTime();
                for (int i = c * chunk; i < (c + 1) * chunk; i++)
                {
                    map.put(keys[i], (long)i);
                }
                perChunk[c] = (System.nanoTime() - t0) / (double)chunk;
            }
            if (map.size() != (long)chunk * CHUNKS)
            {
                throw new IllegalStateException("map holds " + map.size() + " entries");
            }
            System.out.printf("result put %.1f ns/op%n", median(perChunk));
            System.out.println("written " + map.size());
        }
    }

    private static void read(final File file, final byte[][] keys, final int passes) throws Exception
    {
        final int n = keys.length;
        final double[] perPass = new double[passes];
        try (ChronicleMap<byte[], Long> map = open(file, n))
        {
            final int expected = map.size();
            for (int p = 0; p < passes; p++)
            {
                long hits = 0;
                final long t0 = System.nanoTime();
                for (int i = 0; i < expected; i++)
                {
                    final Long v = map.get(keys[i]);
                    if (v != null && v == i)
                    {
                        hits++;
                    }
                }
                perPass[p] = (System.nanoTime() - t0) / (double)expected;
                if (hits != expected)
                {
                    throw new IllegalStateException("pass " + p + ": " + hits + " of " + expected + " found");
                }
            }
            System.out.printf("result get %.1f ns/op%n", median(perPass));
        }
    }

    static double median(final double[] values)
    {
        final double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
