package org.shmav.slots;

import java.nio.ByteBuffer;

import org.shmav.AddrFormat;
import org.shmav.AvType;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * A fresh AV region in process memory for one jcstress iteration: the real slot protocol
 * ({@link SlotTable}) over a heap buffer, with up to four writers (attacher entries) of this
 * process. Threads of one JVM exercise the same cache-coherent CASes as processes sharing a file.
 */
final class Fixture
{
    /** Addresses are sockaddr_in6: 28 bytes, so a torn copy spans four words. */
    static final int LEN = 28;

    final Region region;
    final SlotTable table;
    final Writer w1;
    final Writer w2;

    Fixture(final long capacity)
    {
        this(capacity, 0, 0);
    }

    /** With an auth-key section of {@code authKeys} keys of {@code authKeySize} bytes. */
    Fixture(final long capacity, final int authKeySize, final int authKeys)
    {
        this(AddrFormat.SOCKADDR_IN6, capacity, authKeySize, authKeys);
    }

    /** Slots for addresses of {@code format} (SOCKADDR_IN: 16 bytes, a lookup's two-word copy). */
    Fixture(final AddrFormat format, final long capacity)
    {
        this(format, capacity, 0, 0);
    }

    private Fixture(final AddrFormat format, final long capacity, final int authKeySize, final int authKeys)
    {
        final AvLayout layout = AvLayout.compute(format, AvType.TABLE, capacity, 4, authKeySize, authKeys);
        // Direct memory, as a private AV's and a mapping are, so that Memory takes the path production
        // takes (by address on Java 17-22). jcstress keeps thousands of states alive: scripts/jcstress
        // raises the forked JVMs' direct-memory limit.
        final Memory m = new Memory(ByteBuffer.allocateDirect((int)layout.fileLength()));
        Region.initialize(m, layout, 1L << 32, 0, 0);
        region = new Region(m, layout, true);
        table = region.table();
        w1 = region.writer();
        w2 = table.attach();
    }

    long insert(final Writer w, final ByteBuffer address)
    {
        return table.insert(w, address, 0, LEN, -1L, Long.MIN_VALUE, 0);
    }

    /**
     * Another process's view of the slot protocol over the same memory: a remover of its own, as a
     * recoverer in another JVM would use (they hold no state of their own).
     */
    SlotRemover otherRemover()
    {
        final Memory m = region.memory();
        final AvLayout layout = region.layout();
        return new SlotRemover(m, layout, new DedupIndex(m, layout, new SlotReader(m, layout)), new FreeSlots(m, layout));
    }

    /**
     * Writer {@code w} claims the lowest FREE slot (the real claim CAS, recorded in {@code w}), fills
     * it with {@code address} and places its entry in the active area {@code indexState} names (and in
     * the target too, if a migration runs), as an insert does right before its publish; the slot.
     */
    long claimFilledIndexed(final Writer w, final ByteBuffer address)
    {
        final Memory m = region.memory();
        final AvLayout layout = region.layout();
        final long index = new FreeSlots(m, layout).claimLowest(w);
        final int slot = layout.slot(index);
        m.putInt(slot + SlotDescriptor.ADDR_LEN_OFFSET, LEN);
        m.copyIn(slot + SlotDescriptor.ADDR_OFFSET, address, 0, LEN);
        m.putLong(slot + SlotDescriptor.AUTH_KEY_OFFSET, -1L);
        m.putLong(slot + SlotDescriptor.USER_ID_OFFSET, -1L);
        final long hash = DedupIndex.hash(address, 0, LEN, -1L);
        final long state = m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
        place(IndexWord.activeSegment(state), IndexWord.activeArea(state), IndexWord.stamp(state), hash, index);
        if (IndexWord.migrating(state))
        {
            place(IndexWord.targetSegment(state), IndexWord.targetArea(state), IndexWord.stamp(state) + 1, hash, index);
        }
        return index;
    }

    /**
     * Places the entry of {@code index} (key hash {@code hash}) at the first bucket of its probe sequence
     * that is EMPTY under {@code stamp} in area {@code area} of segment {@code segment}, by CAS from the
     * value read (a bucket of an older stamp is EMPTY, not 0).
     */
    void place(final int segment, final int area, final long stamp, final long hash, final long index)
    {
        final Memory m = region.memory();
        final AvLayout layout = region.layout();
        final long base = layout.hashArea(segment, area);
        final long mask = layout.hashBuckets(segment) - 1;
        final long c = stamp & IndexWord.STAMP_MASK;
        for (long b = hash & mask, probes = 0; probes <= mask; )
        {
            final int offset = (int)(base + b * Long.BYTES);
            final long v = m.getLongVolatile(offset);
            if (DedupIndex.kind(v, c) == DedupIndex.EMPTY)
            {
                if (m.compareAndSetLong(offset, v, IndexWord.entry(c, hash, index)))
                {
                    return;
                }
                continue; // taken meanwhile: look at what it holds
            }
            b = (b + 1) & mask;
            probes++;
        }
        throw new IllegalStateException("no EMPTY bucket for slot " + index + " in area " + area + " of segment " + segment);
    }

    /** The header word indexState. */
    long indexState()
    {
        return region.memory().getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
    }

    /** Slots whose map_addr entry disagrees with their state: VALID slot i maps to i (map base 0), others to -1. */
    long mapMismatches()
    {
        long bad = 0;
        for (long i = 0; i < table.capacity(); i++)
        {
            final boolean valid = SlotDescriptor.state(table.stateWord(i)) == SlotDescriptor.VALID;
            if (table.mapEntry(i) != (valid ? i : -1L))
            {
                bad++;
            }
        }
        return bad;
    }

    /**
     * VALID slots that reverse lookup does not find at their own index (with their own address and auth
     * key): with no other thread running, a miss is the index's answer, so each one is a VALID slot the
     * active area lacks (or a second slot of an address, found at the first one).
     */
    long indexMisses()
    {
        final ByteBuffer dst = ByteBuffer.allocate(LEN);
        long misses = 0;
        for (long i = 0; i < table.capacity(); i++)
        {
            final int len = table.lookup(i, dst.clear());
            if (len < 0)
            {
                continue;
            }
            if (table.reverseLookup(dst, 0, len, table.authKeyOf(i)) != i)
            {
                misses++;
            }
        }
        return misses;
    }

    /** Pairs of VALID slots that hold one address (with one auth key): 0 unless dedup failed. */
    long duplicates()
    {
        final java.util.List<ByteBuffer> keys = new java.util.ArrayList<>();
        for (long i = 0; i < table.capacity(); i++)
        {
            final ByteBuffer dst = ByteBuffer.allocate(LEN + Long.BYTES);
            final int len = table.lookup(i, dst);
            if (len >= 0)
            {
                keys.add(dst.putLong(LEN, table.authKeyOf(i)).limit(LEN + Long.BYTES));
            }
        }
        long pairs = 0;
        for (int a = 0; a < keys.size(); a++)
        {
            for (int b = a + 1; b < keys.size(); b++)
            {
                if (keys.get(a).equals(keys.get(b)))
                {
                    pairs++;
                }
            }
        }
        return pairs;
    }

    /** 1 while indexState names a running migration, else 0. */
    long migrating()
    {
        return IndexWord.migrating(indexState()) ? 1 : 0;
    }

    /** References held by slot {@code index}, 0 unless VALID. */
    long refs(final long index)
    {
        final long word = table.stateWord(index);
        return SlotDescriptor.state(word) == SlotDescriptor.VALID ? SlotDescriptor.payload(word) : 0;
    }

    /** count() when it agrees with the number of entries (committed or VALID slots), else -100 - count(). */
    long checkedCount()
    {
        long valid = 0;
        for (long i = 0; i < table.capacity(); i++)
        {
            if (SlotDescriptor.isEntry(table.stateWord(i)))
            {
                valid++;
            }
        }
        final long count = table.count();
        return count == valid ? count : -100 - count;
    }

    /** A valid sockaddr_in6 whose 28 bytes all depend on {@code n}: no two differ in only some words. */
    static ByteBuffer address(final int n)
    {
        final ByteBuffer b = ByteBuffer.allocate(LEN);
        b.put(0, (byte)10).put(1, (byte)0); // AF_INET6, little-endian host order
        for (int i = 2; i < LEN; i++)
        {
            b.put(i, (byte)(n * 37 + i * 11));
        }
        b.put(2, (byte)(n | 1)); // port never 0
        return b;
    }

    /** 0: no entry (-1); k: {@code dst} equals {@code known[k-1]}; 9: anything else (a torn or foreign address). */
    static int classify(final int length, final ByteBuffer dst, final ByteBuffer... known)
    {
        return classify(length, LEN, dst, known);
    }

    /** {@link #classify(int, ByteBuffer, ByteBuffer...)} of addresses of {@code len} bytes. */
    static int classify(final int length, final int len, final ByteBuffer dst, final ByteBuffer... known)
    {
        if (length < 0)
        {
            return 0;
        }
        if (length != len)
        {
            return 9;
        }
        for (int k = 0; k < known.length; k++)
        {
            if (dst.equals(known[k]))
            {
                return k + 1;
            }
        }
        return 9;
    }

    /** Sets up attacher entry {@code index} as taken by a process that is dead. */
    void killAttacher(final int index, final long journal)
    {
        final Memory m = region.memory();
        final int entry = region.layout().attacher(index);
        region.liveness().release(index); // what the kernel does to a dead process's lock
        m.putLong(entry + AttacherDescriptor.TOKEN_OFFSET, 0xDEADL);
        // Every test kills a writer in the middle of an operation, and a writer is inside its phase for
        // the whole of an insert or a removal: a claimer that finds no slot waits for such phases.
        m.setLongVolatile(entry + AttacherDescriptor.PHASE_OFFSET, 1);
        m.putLong(entry + AttacherDescriptor.JOURNAL_OFFSET, journal);
        m.setLongVolatile(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET,
            Math.max(index + 1, m.getLongVolatile(AvFileDescriptor.ATTACHERS_HIGH_WATER_OFFSET)));
    }
}
