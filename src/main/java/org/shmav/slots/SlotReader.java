package org.shmav.slots;

import static org.shmav.shm.SlotDescriptor.*;

import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;

import org.shmav.shm.AddressReads;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * The reader's half of the slot protocol: lock-free, allocation-free reads of one slot, safe in any
 * process at any time, against writers in any state.
 *
 * <p>Every read is a seqlock read: the state word is read with acquire before the payload, and read
 * again after an acquire fence; the copy is good when state and generation did not change
 * ({@link SlotDescriptor#sameEntry}). The address bytes of a slot never change between its commit
 * (PUBLISHING) and the removal that frees it with a new generation, so an entry of the same generation
 * means an untorn copy. A committed slot is an entry to every reader, as it is to the count
 * ({@link SlotDescriptor#isEntry}): a writer stopped between its commit and its publish hides nothing. Thread-safe: it holds no state of its own.
 */
final class SlotReader
{
    private final Memory m;
    private final AvLayout layout;

    SlotReader(final Memory m, final AvLayout layout)
    {
        this.m = m;
        this.layout = layout;
    }

    /** The state word of slot {@code index}, acquire. */
    long stateWord(final long index)
    {
        return m.getLongAcquire(layout.slot(index) + STATE_OFFSET);
    }

    /** True when slot {@code index} (in range) is an entry: committed, or VALID with at least one reference. */
    boolean isValid(final long index)
    {
        return isEntry(stateWord(index));
    }

    /** See {@link SlotTable#lookup}. */
    int lookup(final long index, final ByteBuffer dst)
    {
        return lookup(m.buffer(), layout.slot(index), layout.addrLen(), dst);
    }

    /**
     * The seqlock read of the slot at offset {@code slot} of {@code region} (a {@link Memory#buffer()},
     * passed as a local: see {@link Memory#copyOut(ByteBuffer, int, ByteBuffer, int)}): the stored
     * length, or -1 when the slot is not an entry or its length is not in (0, {@code maxLen}].
     */
    static int lookup(final ByteBuffer region, final int slot, final int maxLen, final ByteBuffer dst)
    {
        while (true)
        {
            final long before = Memory.getLongAcquire(region, slot + STATE_OFFSET);
            if (!isEntry(before))
            {
                return -1;
            }
            final int len = region.getInt(slot + ADDR_LEN_OFFSET);
            if (len <= 0 || len > maxLen)
            {
                return -1;
            }
            Memory.copyOut(region, slot + ADDR_OFFSET, dst, Math.min(len, dst.remaining()));
            VarHandle.acquireFence(); // the copy above is complete before the state is read again
            final long after = region.getLong(slot + STATE_OFFSET);
            if (sameEntry(before, after))
            {
                return len;
            }
        }
    }

    /**
     * {@link #lookup(ByteBuffer, int, int, ByteBuffer)} of the slot at memory address {@code slot}, by
     * {@link AddressReads}: the caller keeps the mapping reachable.
     */
    static int lookupAt(final long slot, final int maxLen, final ByteBuffer dst)
    {
        // Where a 16-byte address goes, found before the first fence (after a fence the JIT loads every
        // field again): a writable direct buffer with room for it, when the slots hold 16 bytes, else 0 (the
        // general copy below). The position is read once: each value kept costs a register in a caller's loop.
        final int at = dst.position();
        final long dstAddress = maxLen >= 2 * Long.BYTES && dst.limit() - at >= 2 * Long.BYTES && !dst.isReadOnly()
            ? AddressReads.addressOf(dst) : 0;
        final long to = dstAddress == 0 ? 0 : dstAddress + at;
        while (true)
        {
            final long before = AddressReads.getLongAcquire(slot + STATE_OFFSET);
            if (!isEntry(before))
            {
                return -1;
            }
            final int len = AddressReads.getInt(slot + ADDR_LEN_OFFSET);
            if (len == 2 * Long.BYTES && to != 0) // in (0, maxLen]: to is 0 unless maxLen >= 16
            {
                // Both words into registers, checked, then stored: dst gets only a copy the seqlock vouches for.
                final long w0 = AddressReads.getLong(slot + ADDR_OFFSET);
                final long w1 = AddressReads.getLong(slot + ADDR_OFFSET + Long.BYTES);
                AddressReads.loadFence();
                final long after = AddressReads.getLong(slot + STATE_OFFSET);
                if (after == before || sameEntry(before, after)) // the same word: one compare, the usual case
                {
                    AddressReads.putLong(to, w0);
                    AddressReads.putLong(to + Long.BYTES, w1);
                    Reference.reachabilityFence(dst);
                    return len;
                }
                continue;
            }
            if (len <= 0 || len > maxLen)
            {
                return -1;
            }
            AddressReads.copyOut(slot + ADDR_OFFSET, dst, Math.min(len, dst.remaining()));
            AddressReads.loadFence(); // the copy above is complete before the state is read again
            final long after = AddressReads.getLong(slot + STATE_OFFSET);
            if (sameEntry(before, after))
            {
                return len;
            }
        }
    }

    /**
     * Stores the user id of slot {@code index} in {@code into[0]} and returns true, or returns false when the
     * slot is not an entry (every u64 is a user id, so none can say "no entry").
     */
    boolean userId(final long index, final long[] into)
    {
        final int slot = layout.slot(index);
        while (true)
        {
            final long before = m.getLongAcquire(slot + STATE_OFFSET);
            if (!isEntry(before))
            {
                return false;
            }
            into[0] = m.getLongVolatile(slot + USER_ID_OFFSET);
            if (sameEntry(before, m.getLongAcquire(slot + STATE_OFFSET)))
            {
                return true;
            }
        }
    }

    /** The auth-key handle slot {@code index} is bound to, -1 for none, {@code Long.MIN_VALUE} when not an entry. */
    long authKeyOf(final long index)
    {
        final int slot = layout.slot(index);
        while (true)
        {
            final long before = m.getLongAcquire(slot + STATE_OFFSET);
            if (!isEntry(before))
            {
                return Long.MIN_VALUE;
            }
            final long key = m.getLong(slot + AUTH_KEY_OFFSET);
            VarHandle.acquireFence();
            if (sameEntry(before, m.getLong(slot + STATE_OFFSET)))
            {
                return key;
            }
        }
    }

    /** The map_addr entry of slot {@code index}: its fi_addr while VALID, else FI_ADDR_NOTAVAIL. */
    long mapEntry(final long index)
    {
        return m.getLongAcquire(layout.map(index));
    }

    /** True when slot {@code slot} is an entry (committed or VALID) holding exactly this key, checked like a lookup. */
    boolean isValidWithKey(final long slot, final ByteBuffer src, final int off, final int len, final long authKey)
    {
        final long s = stateWord(slot);
        if (!isEntry(s) || !keyEquals(slot, src, off, len, authKey))
        {
            return false;
        }
        VarHandle.acquireFence();
        return sameEntry(s, m.getLong(layout.slot(slot) + STATE_OFFSET));
    }

    /** Plain comparison of slot {@code index}'s key with the caller's: callers check the state around it. */
    boolean keyEquals(final long index, final ByteBuffer src, final int off, final int len, final long authKey)
    {
        final int slot = layout.slot(index);
        return m.getInt(slot + ADDR_LEN_OFFSET) == len
            && m.getLong(slot + AUTH_KEY_OFFSET) == authKey
            && m.bytesEqual(slot + ADDR_OFFSET, src, off, len);
    }
}
