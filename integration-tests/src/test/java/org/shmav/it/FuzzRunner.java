package org.shmav.it;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.FabricException;
import org.shmav.Fi;
import org.shmav.av.AddressVectorImpl;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * The corruption fuzzer, run in a child JVM so that a crash (SIGBUS, SIGSEGV) is reported by the test
 * JVM instead of killing it. Builds a few valid AV files, then for every case mutates one of them
 * (bit flips in the header or the body, word overwrites with boundary values, truncation, extension,
 * wrong magic or version, absurd capacity, offsets past the end) and runs the whole read path on it:
 * open read-only and read-write, count(), lookup of every index, lookupString, reverse lookup of every
 * hit, iteration (validFiAddrs), user ids, a read-write insert/remove/recover, unlink. Each step must
 * work or throw {@link FabricException}; anything else is a failure.
 *
 * <p>Arguments: work directory, progress file, cases per seed, seeds... . A single case is replayed
 * with the argument {@code case=<caseSeed>}. Prints FUZZ-FAILURE lines and one FUZZ-SUMMARY line;
 * exit code 3 when a case failed.
 */
public final class FuzzRunner
{
    private final Path dir;
    private final Path progress;
    private final List<Base> bases = new ArrayList<>();
    private long cases;
    private long refusedRo;
    private long refusedRw;
    private long openedRo;
    private long openedRw;
    private long lookups;
    private long hits;
    private long opErrors;
    private final List<String> failures = new ArrayList<>();

    /** A valid AV file, and the domain that opens it. */
    private record Base(String name, byte[] image, DomainAttr.Builder domain)
    {
    }

    private FuzzRunner(final Path dir, final Path progress)
    {
        this.dir = dir;
        this.progress = progress;
    }

    public static void main(final String[] args) throws Exception
    {
        final FuzzRunner runner = new FuzzRunner(Path.of(args[0]), Path.of(args[1]));
        runner.buildBases();
        if (args[2].startsWith("case="))
        {
            runner.runCase(Long.parseLong(args[2].substring(5)));
        }
        else
        {
            final int perSeed = Integer.parseInt(args[2]);
            for (int s = 3; s < args.length; s++)
            {
                final long seed = Long.parseLong(args[s]);
                for (int i = 0; i < perSeed; i++)
                {
                    runner.runCase(caseSeed(seed, i));
                }
            }
            for (final long fixed : FIXED_CASES)
            {
                runner.runCase(fixed);
            }
        }
        for (final String f : runner.failures)
        {
            System.out.println("FUZZ-FAILURE " + f);
        }
        System.out.println("FUZZ-SUMMARY cases=" + runner.cases + " refusedReadOnly=" + runner.refusedRo +
            " openedReadOnly=" + runner.openedRo + " refusedReadWrite=" + runner.refusedRw + " openedReadWrite=" +
            runner.openedRw + " lookups=" + runner.lookups + " hits=" + runner.hits + " opErrors=" + runner.opErrors +
            " failures=" + runner.failures.size());
        System.out.flush();
        Runtime.getRuntime().halt(runner.failures.isEmpty() ? 0 : 3);
    }

    /**
     * Cases kept because they are the edges: negative case seeds select a fixed mutation
     * ({@link #fixedMutation}), so they run on every build whatever the random seeds are.
     */
    static final long[] FIXED_CASES = {-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16};

    static long caseSeed(final long seed, final int i)
    {
        long z = seed * 0x9E37_79B9_7F4A_7C15L + i;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return (z ^ (z >>> 31)) & Long.MAX_VALUE; // random cases are >= 0, fixed ones negative
    }

    // ------------------------------------------------------------------ base files

    private void buildBases() throws Exception
    {
        final DomainAttr.Builder in = DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir);
        bases.add(build("in-table", in, AvAttr.builder().type(AvType.TABLE).count(64), av ->
        {
            final long[] fi = new long[1];
            for (int i = 1; i <= 50; i++)
            {
                av.insert(inet(i), 1, fi, 0, null);
                if (i % 3 == 0)
                {
                    av.remove(fi, 1, 0);
                }
                if (i % 7 == 0)
                {
                    av.insert(inet(i), 1, fi, 0, null); // a second reference
                }
            }
        }));
        bases.add(build("in-churned", in, AvAttr.builder().type(AvType.TABLE).count(16), av ->
        {
            final long[] fi = new long[1];
            for (int i = 1; i <= 300; i++)
            {
                av.insert(inet(i), 1, fi, 0, null);
                if (i % 20 != 0)
                {
                    av.remove(fi, 1, 0);
                }
            }
        }));
        bases.add(build("in6-map-userid", DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN6).shmDirectory(dir),
            AvAttr.builder().type(AvType.MAP).count(32).flags(Fi.AV_USER_ID), av ->
        {
            final long[] fi = new long[1];
            for (int i = 1; i <= 20; i++)
            {
                av.insert(StormAddress.of(StormAddress.id(1, 1, i)), 1, fi, 0, null);
                av.setUserId(fi[0], 1000 + i, 0);
            }
        }));
        bases.add(build("str-table", DomainAttr.builder().addrFormat(AddrFormat.ADDR_STR).shmDirectory(dir),
            AvAttr.builder().type(AvType.TABLE).count(16), av ->
        {
            for (int i = 1; i <= 10; i++)
            {
                av.insert(new String[] {"node" + i + ":port" + (5000 + i)}, new long[1], 0, null);
            }
        }));
        final DomainAttr.Builder keyed = DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).avAuthKey(true)
            .authKeySize(16).shmDirectory(dir);
        bases.add(build("in-authkey", keyed, AvAttr.builder().type(AvType.TABLE).count(32), av ->
        {
            final long[] handles = new long[3];
            for (int k = 0; k < handles.length; k++)
            {
                final ByteBuffer key = ByteBuffer.allocate(16);
                key.putLong(0, 0x1111_1111_1111_1111L * (k + 1));
                handles[k] = av.insertAuthKey(key, 0);
            }
            for (int i = 1; i <= 10; i++)
            {
                final long[] fi = {handles[i % 3]};
                av.insert(inet(i), 1, fi, Fi.AUTH_KEY, null);
            }
        }));
        // A writer that died mid-insert and mid-removal, and a rebuilder that died: the recovery path's input.
        final Base table = bases.get(0);
        final byte[] crashed = table.image().clone();
        final Memory m = new Memory(ByteBuffer.wrap(crashed));
        final AvLayout layout = AvLayout.read(m, crashed.length);
        final long dead = 0xDEADL; // taken, and nobody holds its lock: a dead writer
        final int entry = layout.attacher(3);
        m.putLong(entry + AttacherDescriptor.TOKEN_OFFSET, dead);
        m.putLong(entry + AttacherDescriptor.JOURNAL_OFFSET, AttacherDescriptor.journal(5, AttacherDescriptor.OP_PUBLISH, 60));
        m.putLong(entry + AttacherDescriptor.PHASE_OFFSET, 1);
        m.putLong(layout.slot(60), SlotDescriptor.word(SlotDescriptor.CLAIMED, 3, 7));
        m.putLong(layout.slot(1), SlotDescriptor.word(SlotDescriptor.REMOVING, 3, 0));
        m.putLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, 4);
        m.putLong(AvFileDescriptor.INDEX_STATE_OFFSET, IndexWord.migrating(m.getLong(AvFileDescriptor.INDEX_STATE_OFFSET),
            0, 1, 3)); // a migration of the index by attacher 3, dead
        bases.add(new Base("in-crashed-writer", crashed, table.domain()));
    }

    private interface Filler
    {
        void fill(AddressVector av) throws Exception;
    }

    private Base build(final String name, final DomainAttr.Builder domain, final AvAttr.Builder attr, final Filler filler)
        throws Exception
    {
        try (Domain d = Domain.open(domain.build()))
        {
            try (AddressVector av = d.openAv(attr.name(name).build()))
            {
                filler.fill(av);
            }
            final byte[] image = Files.readAllBytes(dir.resolve(name));
            Files.delete(dir.resolve(name));
            return new Base(name, image, domain);
        }
    }

    static ByteBuffer inet(final int i)
    {
        try
        {
            return Addresses.toSockaddr(new InetSocketAddress(
                InetAddress.getByAddress(new byte[] {10, 1, (byte)(i >>> 8), (byte)i}), 1000 + i));
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ mutations

    private static final long[] BOUNDARY = {0, 1, -1, 2, 7, 8, 63, 64, 4095, 4096, 4097, 0x7FFF_FFFFL, 0x8000_0000L,
        0xFFFF_FFFFL, 1L << 28, (1L << 28) + 1, 1L << 32, Long.MAX_VALUE, Long.MIN_VALUE, 0x0001_0000L, 0x0002_0000L};

    /** Header fields worth aiming at (offset, width). */
    private static final int[][] HEADER_FIELDS = {
        {AvFileDescriptor.MAGIC_OFFSET, 8}, {AvFileDescriptor.VERSION_OFFSET, 4}, {AvFileDescriptor.HEADER_LENGTH_OFFSET, 4},
        {AvFileDescriptor.ADDR_FORMAT_OFFSET, 4}, {AvFileDescriptor.ADDR_LEN_OFFSET, 4}, {AvFileDescriptor.AV_TYPE_OFFSET, 4},
        {AvFileDescriptor.SLOT_LENGTH_OFFSET, 4}, {AvFileDescriptor.CAPACITY_OFFSET, 8}, {AvFileDescriptor.MAP_ADDR_BASE_OFFSET, 8},
        {AvFileDescriptor.FILE_LENGTH_OFFSET, 8}, {AvFileDescriptor.AV_FLAGS_OFFSET, 8}, {AvFileDescriptor.RX_CTX_BITS_OFFSET, 4},
        {AvFileDescriptor.AUTH_KEY_SIZE_OFFSET, 4}, {AvFileDescriptor.ATTACHERS_CAPACITY_OFFSET, 4},
        {AvFileDescriptor.AUTH_KEYS_CAPACITY_OFFSET, 4}, {AvFileDescriptor.ATTACHERS_OFFSET_OFFSET, 8},
        {AvFileDescriptor.AUTH_KEYS_OFFSET_OFFSET, 8}, {AvFileDescriptor.HASH_OFFSET_OFFSET, 8},
        {AvFileDescriptor.HASH_BUCKETS_OFFSET, 8}, {AvFileDescriptor.SEGMENT_COUNT_OFFSET, 4},
        {AvFileDescriptor.FREE_HINT_OFFSET, 8},
        {AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, 8}, {AvFileDescriptor.INDEX_STATE_OFFSET, 8},
        {AvFileDescriptor.HASH_USED_BASE_OFFSET, 8}, {AvFileDescriptor.MAX_CAPACITY_OFFSET, 8},
        {AvFileDescriptor.segmentOffset(0) + AvFileDescriptor.SEGMENT_SLOTS_OFFSET, 8},
        {AvFileDescriptor.segmentOffset(0) + AvFileDescriptor.SEGMENT_HASH_OFFSET, 8},
        {AvFileDescriptor.segmentOffset(1) + AvFileDescriptor.SEGMENT_SLOTS_OFFSET, 8},
        {AvFileDescriptor.segmentOffset(1) + AvFileDescriptor.SEGMENT_HASH_OFFSET, 8},
    };

    /** Mutates {@code image}; returns the new image and appends what was done to {@code what}. */
    private byte[] mutate(final byte[] image, final SplittableRandom r, final StringBuilder what)
    {
        byte[] out = image.clone();
        final int rounds = 1 + r.nextInt(3);
        for (int k = 0; k < rounds; k++)
        {
            final int kind = r.nextInt(100);
            if (out.length == 0)
            {
                break; // truncated to nothing: no more to mutate
            }
            if (kind < 30)
            {
                final int flips = 1 + r.nextInt(8);
                for (int f = 0; f < flips; f++)
                {
                    final int at = r.nextInt(Math.min(out.length, AvFileDescriptor.HEADER_LENGTH));
                    out[at] ^= (byte)(1 << r.nextInt(8));
                    what.append(" headerFlip@").append(at);
                }
            }
            else if (kind < 60)
            {
                final int flips = 1 + r.nextInt(32);
                for (int f = 0; f < flips; f++)
                {
                    final int at = r.nextInt(out.length);
                    out[at] ^= (byte)(1 << r.nextInt(8));
                    what.append(" flip@").append(at);
                }
            }
            else if (kind < 70)
            {
                final int[] field = HEADER_FIELDS[r.nextInt(HEADER_FIELDS.length)];
                final long value = BOUNDARY[r.nextInt(BOUNDARY.length)] + (r.nextBoolean() ? 0 : image.length);
                put(out, field[0], field[1], value);
                what.append(" header@").append(field[0]).append('=').append(value);
            }
            else if (kind < 82)
            {
                // a word of the body (attachers, auth keys, slots, map, hash) set to a boundary value
                final int words = 1 + r.nextInt(16);
                for (int w = 0; w < words && out.length > 4096 + 8; w++)
                {
                    final int at = (4096 + r.nextInt(out.length - 4096 - 8)) & ~7;
                    final long value = r.nextInt(4) == 0 ? r.nextLong() : BOUNDARY[r.nextInt(BOUNDARY.length)];
                    put(out, at, 8, value);
                    what.append(" word@").append(at).append('=').append(value);
                }
            }
            else if (kind < 91)
            {
                final int[] lengths = {0, 1, 8, 4095, 4096, 4097, out.length - 1, out.length - 8, out.length - 4096,
                    r.nextInt(Math.max(1, out.length))};
                final int length = Math.max(0, lengths[r.nextInt(lengths.length)]);
                out = java.util.Arrays.copyOf(out, Math.min(length, out.length));
                what.append(" truncate=").append(out.length);
            }
            else
            {
                final int[] extra = {1, 7, 8, 4096, 8192, 1 + r.nextInt(100_000)};
                final int add = extra[r.nextInt(extra.length)];
                final byte[] longer = java.util.Arrays.copyOf(out, out.length + add);
                for (int i = out.length; i < longer.length; i += 1 + r.nextInt(64))
                {
                    longer[i] = (byte)r.nextInt(256);
                }
                out = longer;
                what.append(" extend+").append(add);
            }
        }
        return out;
    }

    private static void put(final byte[] out, final int at, final int width, final long value)
    {
        if (at + width > out.length)
        {
            return;
        }
        final ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        if (width == 8)
        {
            b.putLong(at, value);
        }
        else
        {
            b.putInt(at, (int)value);
        }
    }

    /** The fixed edge cases: case seed -1 .. -16. */
    private byte[] fixedMutation(final long caseSeed, final StringBuilder what)
    {
        final byte[] base = bases.get(0).image();
        final int n = (int)-caseSeed;
        final byte[] out = base.clone();
        switch (n)
        {
            case 1: put(out, 0, 8, 0x1122334455667788L); what.append(" wrongMagic"); return out;
            case 2: put(out, AvFileDescriptor.VERSION_OFFSET, 4, 2 << 16); what.append(" version=2.0"); return out;
            case 3: put(out, AvFileDescriptor.VERSION_OFFSET, 4, 0); what.append(" version=0 (never ready)"); return out;
            case 4: put(out, AvFileDescriptor.VERSION_OFFSET, 4, (1 << 16) | 0xFFFF); what.append(" version=1.65535"); return out;
            case 5: put(out, AvFileDescriptor.CAPACITY_OFFSET, 8, Long.MAX_VALUE); what.append(" capacity=MAX"); return out;
            case 6: put(out, AvFileDescriptor.CAPACITY_OFFSET, 8, 1L << 28); what.append(" capacity=2^28"); return out;
            case 7: put(out, AvFileDescriptor.HASH_OFFSET_OFFSET, 8, base.length); what.append(" hashOffset=end"); return out;
            case 8:
                put(out, AvFileDescriptor.segmentOffset(0) + AvFileDescriptor.SEGMENT_SLOTS_OFFSET, 8, base.length + 4096L);
                what.append(" slotsOffset>end");
                return out;
            case 9: put(out, AvFileDescriptor.FILE_LENGTH_OFFSET, 8, base.length * 2L); what.append(" fileLength=2x"); return out;
            case 10: what.append(" truncate=0"); return new byte[0];
            case 11: what.append(" truncate=4096"); return java.util.Arrays.copyOf(base, 4096);
            case 12: what.append(" truncate=-4096"); return java.util.Arrays.copyOf(base, base.length - 4096);
            case 13: what.append(" extend+4096"); return java.util.Arrays.copyOf(base, base.length + 4096);
            case 14: put(out, AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, 8, Long.MAX_VALUE);
                put(out, AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET + 64, 8, -1); what.append(" highWater=MAX"); return out;
            case 15:
            {
                // every slot VALID with an absurd length and reference count, every bucket pointing everywhere
                final Memory m = new Memory(ByteBuffer.wrap(out));
                final AvLayout layout = AvLayout.read(m, out.length);
                for (long i = 0; i < layout.capacity(); i++)
                {
                    m.putLong(layout.slot(i), SlotDescriptor.word(SlotDescriptor.VALID, 0xFFFF_FFFFL, i));
                    m.putInt(layout.slot(i) + SlotDescriptor.ADDR_LEN_OFFSET, i % 2 == 0 ? -1 : 0x7FFF_FFFF);
                }
                for (long b = 0; b < 2 * layout.hashBuckets(); b++)
                {
                    m.putLong((int)(layout.hashArea(0, 0) + 8 * b), (b << 36) | (b << 26) | (b % (layout.capacity() + 3)));
                }
                what.append(" allSlotsValidAbsurdLength");
                return out;
            }
            default:
            {
                // every attacher entry taken by a dead process with a journal naming a slot out of range
                final Memory m = new Memory(ByteBuffer.wrap(out));
                final AvLayout layout = AvLayout.read(m, out.length);
                for (int a = 0; a < layout.attachersCapacity(); a++)
                {
                    m.putLong(layout.attacher(a), 0xDEADL); // taken, lock free: dead
                    m.putLong(layout.attacher(a) + AttacherDescriptor.JOURNAL_OFFSET, -1L);
                }
                m.putLong(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET, layout.attachersCapacity());
                what.append(" allAttachersDeadGarbageJournal");
                return out;
            }
        }
    }

    // ------------------------------------------------------------------ one case

    private void runCase(final long caseSeed) throws IOException
    {
        cases++;
        final SplittableRandom r = new SplittableRandom(caseSeed);
        final StringBuilder what = new StringBuilder();
        final Base base;
        final byte[] image;
        if (caseSeed < 0)
        {
            base = bases.get(0);
            image = fixedMutation(caseSeed, what);
        }
        else
        {
            base = bases.get(r.nextInt(bases.size()));
            image = mutate(base.image(), r, what);
        }
        final String description = "case=" + caseSeed + " base=" + base.name() + what;
        Files.writeString(progress, description + "\n");
        final Path file = dir.resolve("case");
        Files.deleteIfExists(file);
        if (caseSeed < 0 || r.nextInt(10) != 0)
        {
            bindLockFile(image); // else the header names another lock file: writers refuse it
        }
        Files.write(file, image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        DomainAttr.Builder domain = base.domain();
        if (caseSeed >= 0 && r.nextInt(10) == 0)
        {
            final AddrFormat[] formats = {AddrFormat.SOCKADDR_IN, AddrFormat.SOCKADDR_IN6, AddrFormat.ADDR_STR};
            domain = DomainAttr.builder().addrFormat(formats[r.nextInt(formats.length)]).shmDirectory(dir);
        }
        final DomainAttr attr = domain.build();
        try (Domain d = Domain.open(attr))
        {
            exercise(d, attr.addrFormat(), description, true);
            exercise(d, attr.addrFormat(), description, false);
            step(description, "unlink", () -> d.unlinkAv("case"));
        }
        catch (final RuntimeException | Error e)
        {
            failures.add(description + " step=domain " + trace(e));
        }
        Files.deleteIfExists(file);
    }

    /**
     * Makes the case's lock file (layout 4: writers lock there, and refuse an AV whose header names
     * another) and writes its inode and device into {@code image}, so that writers, not only readers,
     * meet the mutated file. Without it every read-write open was refused (FUZZ-SUMMARY
     * openedReadWrite=0 from layout 4.0 on).
     */
    private void bindLockFile(final byte[] image) throws IOException
    {
        if (image.length < AvFileDescriptor.LOCK_FILE_DEVICE_OFFSET + 8)
        {
            return;
        }
        final Path lock = dir.resolve(".shmav-lock.case");
        if (!Files.exists(lock))
        {
            Files.createFile(lock);
        }
        final ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(AvFileDescriptor.LOCK_FILE_INODE_OFFSET, ((Number)Files.getAttribute(lock, "unix:ino")).longValue());
        b.putLong(AvFileDescriptor.LOCK_FILE_DEVICE_OFFSET, ((Number)Files.getAttribute(lock, "unix:dev")).longValue());
    }

    private interface Step
    {
        void run() throws Exception;
    }

    private void step(final String description, final String name, final Step step)
    {
        try
        {
            step.run();
        }
        catch (final FabricException e)
        {
            opErrors++;
        }
        catch (final Exception | Error e)
        {
            failures.add(description + " step=" + name + " " + trace(e));
        }
    }

    private void exercise(final Domain d, final AddrFormat format, final String description, final boolean readOnly)
    {
        final String mode = readOnly ? "readOnly" : "readWrite";
        final AddressVector av;
        try
        {
            av = d.openAv(AvAttr.builder().name("case").flags(readOnly ? Fi.READ : 0).build());
        }
        catch (final FabricException e)
        {
            if (readOnly)
            {
                refusedRo++;
            }
            else
            {
                refusedRw++;
            }
            return;
        }
        catch (final Exception | Error e)
        {
            failures.add(description + " step=open-" + mode + " " + trace(e));
            return;
        }
        if (readOnly)
        {
            openedRo++;
        }
        else
        {
            openedRw++;
        }
        try
        {
            step(description, "count-" + mode, av::count);
            final long capacity = av.attr().count();
            final long base = av.attr().type() == AvType.MAP ? av.attr().mapAddr() : 0;
            final ByteBuffer buf = ByteBuffer.allocate(AddrFormat.MAX_STR_LEN + 64);
            for (long i = 0; i < capacity; i++)
            {
                final long fiAddr = base + i;
                lookups++;
                step(description, "lookup-" + mode + "@" + i, () ->
                {
                    av.lookup(fiAddr, buf.clear());
                    hits++;
                    av.straddr(buf);
                    av.reverseLookup(buf);
                    av.lookupString(fiAddr);
                    av.userId(fiAddr);
                });
            }
            step(description, "iterate-" + mode, () ->
            {
                for (final long fiAddr : ((AddressVectorImpl)av).validFiAddrs())
                {
                    av.lookup(fiAddr, buf.clear());
                }
            });
            if (!readOnly)
            {
                step(description, "insert-remove", () ->
                {
                    final long[] fi = new long[1];
                    final ByteBuffer addr = fresh(format);
                    if (av.insert(addr, 1, fi, 0, null) == 1)
                    {
                        av.lookup(fi[0], buf.clear());
                        av.remove(fi, 1, 0);
                    }
                });
                step(description, "recover", av::recover);
            }
        }
        finally
        {
            step(description, "close-" + mode, av::close);
        }
    }

    /** An address of the AV's format that none of the bases holds. */
    private static ByteBuffer fresh(final AddrFormat format)
    {
        switch (format)
        {
            case SOCKADDR_IN: return inet(60_000);
            case SOCKADDR_IN6: return StormAddress.of(StormAddress.id(9, 9, 9));
            default: return Addresses.toStrAddr("fresh-node:1");
        }
    }

    private static String trace(final Throwable e)
    {
        final StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        final String[] lines = w.toString().split("\n");
        return String.join(" | ", java.util.Arrays.copyOf(lines, Math.min(8, lines.length)));
    }

    static String readProgress(final Path progress) throws IOException
    {
        return Files.exists(progress) ? new String(Files.readAllBytes(progress), StandardCharsets.UTF_8).trim() : "(none)";
    }
}
