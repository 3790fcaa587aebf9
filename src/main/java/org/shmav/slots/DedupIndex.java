package org.shmav.slots;

import static org.shmav.shm.IndexWord.*;
import static org.shmav.shm.SlotDescriptor.*;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.shmav.FiErrno;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;

/**
 * The dedup index: an open-addressing hash of (address, auth-key handle) to the slot holding it, used
 * by inserts (one slot per address, across processes) and by reverse lookups. It lives in one of the
 * hash areas, the one {@code indexState} names ({@link IndexWord}); {@link IndexMigration} moves it to
 * another without stopping anyone.
 *
 * <pre>
 *   bucket, to a walker using stamp c:  EMPTY (0, slot field 0, or a stamp older than c)
 *     --CAS (an inserter, or a migration's copy)--> entry(c, tag, slot) --CAS (removal, undo)--> TOMBSTONE(c)
 *   a stamp newer than c: the walker's indexState is out of date
 * </pre>
 *
 * Invariants: within one stamp a bucket goes from EMPTY to an entry only by CAS and never back, so
 * every entry lies before the first EMPTY bucket of its probe sequence; the active area holds an entry
 * for every VALID slot; an entry points only at a slot whose key bytes are already written. An entry
 * may outlive its slot's incarnation (a removal that could not reach it, a migration's late copy):
 * every hit is checked against the slot, so such a dead entry costs a bucket, never a wrong answer.
 * Thread-safe: it holds no state of its own.
 */
final class DedupIndex
{
    /** What a bucket is to a walker ({@link #kind}). */
    static final int EMPTY = 0;
    static final int TOMBSTONE = 1;
    static final int ENTRY = 2;
    static final int NEWER = 3;
    /** Results of {@link #probe} besides a slot. */
    static final long MISS = -1;
    static final long RESTATE = -3;
    static final long BEYOND_VIEW = -4;
    /** Tries of a reverse lookup whose index moved under it before it scans the slots instead. */
    private static final int LOOKUP_TRIES = 3;

    private final Memory m;
    private final AvLayout layout;
    private final SlotReader reader;
    private final long capacity;

    DedupIndex(final Memory m, final AvLayout layout, final SlotReader reader)
    {
        this.m = m;
        this.layout = layout;
        this.reader = reader;
        this.capacity = layout.capacity();
    }

    /** What bucket value {@code v} is to a walker using stamp {@code c}. */
    static int kind(final long v, final long c)
    {
        final long slot = slotField(v);
        if (slot == 0)
        {
            return EMPTY;
        }
        final long stamp = bucketStamp(v);
        if (stamp != c)
        {
            return older(stamp, c) ? EMPTY : NEWER;
        }
        return slot == TOMBSTONE_SLOT ? TOMBSTONE : ENTRY;
    }

    long indexState()
    {
        return m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
    }

    /** True when both areas {@code state} names are in this view (else the AV grew past it). */
    boolean inView(final long state)
    {
        return activeSegment(state) < layout.segments() && (!migrating(state) || targetSegment(state) < layout.segments());
    }

    /**
     * Why {@code state}, not {@link #inView}, cannot be used: {@link SlotTable#STALE_VIEW} when the AV
     * grew past this view (map the file again); -EIO when it names a segment the AV never published (a
     * damaged word: a growth publishes its segment before any state names it, so a writer that loaded
     * such a state sees the new segment count).
     */
    int outOfView(final long state)
    {
        return stale() ? SlotTable.STALE_VIEW : -FiErrno.EIO;
    }

    /** True when the AV grew past this view: map the file again. */
    boolean stale()
    {
        return m.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET) != layout.segments();
    }

    long activeBase(final long state)
    {
        return layout.hashArea(activeSegment(state), activeArea(state));
    }

    long activeMask(final long state)
    {
        return layout.hashBuckets(activeSegment(state)) - 1;
    }

    long targetBase(final long state)
    {
        return layout.hashArea(targetSegment(state), targetArea(state));
    }

    long targetMask(final long state)
    {
        return layout.hashBuckets(targetSegment(state)) - 1;
    }

    /** See {@link SlotTable#reverseLookup}. */
    long reverseLookup(final ByteBuffer src, final int off, final int len, final long authKey)
    {
        final long hash = hash(src, off, len, authKey);
        for (int attempt = 0; attempt < LOOKUP_TRIES; attempt++)
        {
            final long state = m.getLongAcquire(AvFileDescriptor.INDEX_STATE_OFFSET);
            if (!inView(state))
            {
                if (stale())
                {
                    return SlotTable.STALE_VIEW;
                }
                break; // a damaged indexState: the slots still answer
            }
            final long slot = probe(state, src, off, len, authKey, hash);
            if (slot >= 0)
            {
                return slot;
            }
            if (slot == BEYOND_VIEW && stale())
            {
                return SlotTable.STALE_VIEW;
            }
            VarHandle.acquireFence();
            if (slot == MISS && m.getLong(AvFileDescriptor.INDEX_STATE_OFFSET) == state)
            {
                return -1; // the area was the index throughout the probe
            }
        }
        final long found = scan(src, off, len, authKey);
        return found >= 0 || !stale() ? found : SlotTable.STALE_VIEW; // a growth ran: its new slots are not in view
    }

    /**
     * Probes the active area of {@code state} for a VALID slot holding the key: the slot, {@link #MISS},
     * {@link #RESTATE} (the area was reused since: load the state again) or {@link #BEYOND_VIEW} (an
     * entry points past this view's slots).
     */
    long probe(final long state, final ByteBuffer src, final int off, final int len, final long authKey,
        final long hash)
    {
        final long base = activeBase(state);
        final long mask = activeMask(state);
        final long stamp = stamp(state);
        final long tag = tagOfHash(hash);
        long bucket = hash & mask;
        for (long probes = 0; probes <= mask; probes++, bucket = (bucket + 1) & mask)
        {
            final long v = m.getLongAcquire((int)(base + bucket * Long.BYTES));
            final int kind = kind(v, stamp);
            if (kind == EMPTY)
            {
                return MISS;
            }
            if (kind == NEWER)
            {
                return RESTATE;
            }
            if (kind == TOMBSTONE || tag(v) != tag)
            {
                continue;
            }
            final long slot = slotField(v) - 1;
            if (slot >= capacity)
            {
                return BEYOND_VIEW;
            }
            if (reader.isValidWithKey(slot, src, off, len, authKey))
            {
                return slot;
            }
        }
        return MISS;
    }

    /** Every slot, in order: the answer of a reverse lookup whose index kept moving. */
    private long scan(final ByteBuffer src, final int off, final int len, final long authKey)
    {
        for (long slot = 0; slot < capacity; slot++)
        {
            if (reader.isValidWithKey(slot, src, off, len, authKey))
            {
                return slot;
            }
        }
        return -1;
    }

    /**
     * See {@link SlotTable#touchBuckets}. Every hash first, then every load: a load interleaved with the
     * hashing would stay the only miss in flight, since the hashing of the next addresses fills the
     * processor's window before the miss returns; back to back, the window holds all {@code n} loads.
     */
    long touchBuckets(final ByteBuffer src, final int off, final int len, final int n, final long[] hashes)
    {
        for (int i = 0; i < n; i++)
        {
            hashes[i] = hash(src, off + i * len, len, -1L);
        }
        final long state = m.getLong(AvFileDescriptor.INDEX_STATE_OFFSET);
        if (!inView(state))
        {
            return 0;
        }
        final long base = activeBase(state);
        final long mask = activeMask(state);
        long sink = 0;
        for (int i = 0; i < n; i++)
        {
            sink ^= m.getLong((int)(base + (hashes[i] & mask) * Long.BYTES));
        }
        return sink;
    }

    /**
     * Replaces the entries pointing at slot {@code index} in the areas {@code indexState} names with
     * TOMBSTONEs, while the slot is REMOVING or CLAIMED (so no new incarnation has entries yet). An
     * entry this cannot reach (an area past this view, a migration's copy made after) stays dead.
     */
    void tombstone(final long index)
    {
        final int slot = layout.slot(index);
        final int len = m.getInt(slot + ADDR_LEN_OFFSET);
        if (len <= 0 || len > layout.addrLen())
        {
            return; // never filled: never indexed
        }
        final long hash = hash(m.buffer(), slot + ADDR_OFFSET, len, m.getLong(slot + AUTH_KEY_OFFSET));
        final long state = indexState();
        if (!inView(state))
        {
            return;
        }
        tombstone(activeBase(state), activeMask(state), stamp(state), hash, index);
        if (migrating(state))
        {
            tombstone(targetBase(state), targetMask(state), stamp(state) + 1, hash, index);
        }
    }

    private void tombstone(final long base, final long mask, final long stamp, final long hash, final long index)
    {
        final long entry = entry(stamp, hash, index);
        long bucket = hash & mask;
        for (long probes = 0; probes <= mask; probes++, bucket = (bucket + 1) & mask)
        {
            final int offset = (int)(base + bucket * Long.BYTES);
            final long b = m.getLongVolatile(offset);
            if (b == entry)
            {
                m.compareAndSetLong(offset, entry, IndexWord.tombstone(stamp));
                return;
            }
            final int kind = kind(b, stamp & STAMP_MASK);
            if (kind == EMPTY || kind == NEWER)
            {
                return;
            }
        }
    }

    /**
     * Indexes every VALID slot into area 0 of the last segment under a fresh {@code indexState}: only
     * for a region nobody else sees yet (a private AV's grown copy, tests).
     */
    void indexAll()
    {
        final int k = layout.segments() - 1;
        final long state = IndexWord.idle(IndexWord.INITIAL_STATE, k, 0);
        final long base = layout.hashArea(k, 0);
        final long mask = layout.hashBuckets(k) - 1;
        for (long b = 0; b <= mask; b++)
        {
            m.putLong((int)(base + b * Long.BYTES), 0L);
        }
        long entries = 0;
        for (long i = 0; i < capacity; i++)
        {
            final int slot = layout.slot(i);
            if (state(m.getLongVolatile(slot + STATE_OFFSET)) != VALID)
            {
                continue;
            }
            final int len = m.getInt(slot + ADDR_LEN_OFFSET);
            if (len <= 0 || len > layout.addrLen())
            {
                continue; // a corrupted slot: lookups refuse it too
            }
            final long hash = hash(m.buffer(), slot + ADDR_OFFSET, len, m.getLong(slot + AUTH_KEY_OFFSET));
            long bucket = hash & mask;
            while (m.getLong((int)(base + bucket * Long.BYTES)) != 0)
            {
                bucket = (bucket + 1) & mask;
            }
            m.putLong((int)(base + bucket * Long.BYTES), entry(stamp(state), hash, i));
            entries++;
        }
        m.setLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET, state);
        m.setLongVolatile(AvFileDescriptor.HASH_USED_BASE_OFFSET, entries - ChangeCounters.published(m, layout));
    }

    /**
     * The hash of an address and its auth-key handle (shm-layout.md, HASH): 8-byte little-endian
     * chunks (the last one zero-padded) mixed by multiply and xor-shift. Bucket = hash mod buckets,
     * tag = high 10 bits.
     */
    static long hash(final ByteBuffer src, final int off, final int len, final long authKey)
    {
        long h = 0x9E37_79B9_7F4A_7C15L ^ len;
        int i = 0;
        for (; i + 8 <= len; i += 8)
        {
            h = mix(h, littleEndianLong(src, off + i));
        }
        if (i < len)
        {
            long tail = 0;
            for (int k = 0; i + k < len; k++)
            {
                tail |= (src.get(off + i + k) & 0xFFL) << (8 * k);
            }
            h = mix(h, tail);
        }
        h = mix(h, authKey);
        h ^= h >>> 31;
        h *= 0xBF58_476D_1CE4_E5B9L;
        return h ^ (h >>> 29);
    }

    private static long mix(final long h, final long v)
    {
        final long x = (h ^ v) * 0x9E37_79B9_7F4A_7C15L;
        return x ^ (x >>> 32);
    }

    private static long littleEndianLong(final ByteBuffer src, final int at)
    {
        final long v = src.getLong(at);
        return src.order() == ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v);
    }
}
