package org.shmav.slots;

import static org.shmav.shm.SlotDescriptor.*;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;

/**
 * The dedup index: an open-addressing hash of (address, auth-key handle) to the slot holding it, used
 * by inserts (one slot per address, across processes) and by reverse lookups.
 *
 * <pre>
 *   bucket, u64:  0 = EMPTY | 0xFFFF_FFFF = TOMBSTONE | tag (high 32 bits of the hash) &lt;&lt; 32 | slot + 1
 *
 *   EMPTY --CAS (install, by the slot's claimer)--> tag|slot+1 --CAS (tombstone, at undo/removal)--> TOMBSTONE
 *     ^                                                                                                  |
 *     +------------------------------ plain stores of an index rebuild ({@link IndexRebuild}) -----------+
 * </pre>
 *
 * Invariants: a bucket goes from EMPTY to an entry only by CAS and back to EMPTY only in a rebuild, so
 * every entry of a key lies before the first EMPTY bucket of its probe sequence; an inserter installs
 * only into an EMPTY bucket after checking every bucket before it, which is what makes two inserters
 * of one address agree on one slot (see {@link SlotInserter}). A bucket points only at a slot whose
 * key bytes are already written. Readers trust a miss only if no rebuild started or ran meanwhile.
 * Thread-safe: it holds no state of its own.
 */
final class DedupIndex
{
    static final long EMPTY = 0L;
    static final long TOMBSTONE = 0xFFFF_FFFFL;

    private final Memory m;
    private final AvLayout layout;
    private final SlotReader reader;
    private final long capacity;
    private final long bucketMask;

    DedupIndex(final Memory m, final AvLayout layout, final SlotReader reader)
    {
        this.m = m;
        this.layout = layout;
        this.reader = reader;
        this.capacity = layout.capacity();
        this.bucketMask = layout.hashBuckets() - 1;
    }

    long bucketMask()
    {
        return bucketMask;
    }

    /** See {@link SlotTable#reverseLookup}. */
    long reverseLookup(final ByteBuffer src, final int off, final int len, final long authKey)
    {
        final long epoch = m.getLongAcquire(AvFileDescriptor.HASH_EPOCH_OFFSET);
        if (stale())
        {
            return SlotTable.STALE_VIEW;
        }
        if ((epoch & 0xFFFF_FFFFL) == 0)
        {
            final long slot = probe(src, off, len, authKey, hash(src, off, len, authKey));
            VarHandle.acquireFence();
            if (slot >= 0 || m.getLong(AvFileDescriptor.HASH_EPOCH_OFFSET) == epoch)
            {
                return slot;
            }
        }
        final long found = scan(src, off, len, authKey);
        return found >= 0 || !stale() ? found : SlotTable.STALE_VIEW; // a growth ran: its new slots are not in view
    }

    /** True when the AV grew past this view: its hash is not the one in use. Read after the epoch. */
    private boolean stale()
    {
        return m.getIntAcquire(AvFileDescriptor.SEGMENT_COUNT_OFFSET) != layout.segments();
    }

    /** Probes the hash for a VALID slot holding the key; -1 when none is indexed. */
    long probe(final ByteBuffer src, final int off, final int len, final long authKey, final long hash)
    {
        final int tag = (int)(hash >>> 32);
        long bucket = hash & bucketMask;
        for (long probes = 0; probes <= bucketMask; probes++, bucket = (bucket + 1) & bucketMask)
        {
            final long w = m.getLongAcquire(layout.bucket(bucket));
            if (w == EMPTY)
            {
                return -1;
            }
            if (w == TOMBSTONE || (int)(w >>> 32) != tag)
            {
                continue;
            }
            final long slot = (w & 0xFFFF_FFFFL) - 1;
            if (slot >= 0 && slot < capacity && reader.isValidWithKey(slot, src, off, len, authKey))
            {
                return slot;
            }
        }
        return -1;
    }

    /** Every slot, in order: the answer of a reverse lookup that raced an index rebuild. */
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
        long sink = 0;
        for (int i = 0; i < n; i++)
        {
            sink ^= m.getLong(layout.bucket(hashes[i] & bucketMask));
        }
        return sink;
    }

    /** Replaces the bucket pointing at {@code index} (if any) with a TOMBSTONE. */
    void tombstone(final long index)
    {
        final int slot = layout.slot(index);
        final int len = m.getInt(slot + ADDR_LEN_OFFSET);
        if (len <= 0 || len > layout.addrLen())
        {
            return; // never filled: never indexed
        }
        final long hash = hash(m.buffer(), slot + ADDR_OFFSET, len, m.getLong(slot + AUTH_KEY_OFFSET));
        final int tag = (int)(hash >>> 32);
        final long entry = ((long)tag << 32) | (index + 1);
        long bucket = hash & bucketMask;
        for (long probes = 0; probes <= bucketMask; probes++, bucket = (bucket + 1) & bucketMask)
        {
            final int offset = layout.bucket(bucket);
            final long b = m.getLongVolatile(offset);
            if (b == EMPTY)
            {
                return;
            }
            if (b == entry)
            {
                m.compareAndSetLong(offset, entry, TOMBSTONE);
                return;
            }
        }
    }

    /** Every bucket EMPTY, then one entry per VALID slot. Only while no writer is inside an insert. */
    void rebuildBuckets()
    {
        for (long b = 0; b <= bucketMask; b++)
        {
            m.putLong(layout.bucket(b), EMPTY);
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
            long bucket = hash & bucketMask;
            while (m.getLong(layout.bucket(bucket)) != EMPTY)
            {
                bucket = (bucket + 1) & bucketMask;
            }
            m.putLong(layout.bucket(bucket), ((hash >>> 32) << 32) | (i + 1));
            entries++;
        }
        m.setLongVolatile(AvFileDescriptor.HASH_USED_BASE_OFFSET, entries - ChangeCounters.published(m, layout));
    }

    /**
     * The hash of an address and its auth-key handle (shm-layout.md, HASH): 8-byte little-endian
     * chunks (the last one zero-padded) mixed by multiply and xor-shift. Bucket = hash mod buckets,
     * tag = high 32 bits.
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
