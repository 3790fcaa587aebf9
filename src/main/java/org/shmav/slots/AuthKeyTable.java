package org.shmav.slots;

import static org.shmav.shm.SlotDescriptor.*;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

import org.shmav.FiErrno;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Liveness;
import org.shmav.shm.Memory;

/**
 * The auth-key section of an AV region: authorization keys inserted with {@code fi_av_insert_auth_key},
 * each at an index k; the application's handle for it is 2^62 | k (stored in slots as k).
 *
 * <pre>
 *   0 | state word: FREE, CLAIMED(owner) or VALID(refs), encoded as a slot's state word |
 *   8 | user id (FI_ADDR_NOTAVAIL = unset)                                              |
 *  16 | key bytes (authKeySize, padded to 8)                                            |
 * </pre>
 *
 * Entries are claimed by CAS from FREE, filled, then published by CAS to VALID from the claim word,
 * like slots. A key inserted again takes a reference on its entry. The table is small (keys are set up
 * once per job) and has no index, so inserts of keys are serialised across processes by the kernel:
 * an inserter holds an exclusive record lock on the auth-key lock byte of the AV's lock file
 * ({@link AvFileDescriptor#AUTH_KEY_LOCK_OFFSET}) while it looks for the key and adds it, so one
 * insert of a new key wins even when several processes insert it at once. A process that dies
 * holding it releases it with its death; a live holder is waited for, bounded. Thread-safe.
 */
public final class AuthKeyTable
{
    private static final int USER_ID = 8;
    private static final int KEY = 16;

    private final Memory m;
    private final AvLayout layout;
    private final Liveness locks;

    public AuthKeyTable(final Memory m, final AvLayout layout, final Liveness locks)
    {
        this.m = m;
        this.layout = layout;
        this.locks = locks;
    }

    public int capacity()
    {
        return layout.authKeysCapacity();
    }

    public int keySize()
    {
        return layout.authKeySize();
    }

    /** True when handle {@code index} names a VALID key. */
    public boolean isValid(final long index)
    {
        return index >= 0 && index < capacity() && state(m.getLongAcquire(layout.authKey((int)index))) == VALID;
    }

    /**
     * Inserts a key ({@code keySize} bytes at {@code src}'s position) or references its twin: the
     * handle, -ENOSPC when every entry is taken, or -EAGAIN when another live process held the auth-key
     * lock past the deadline.
     */
    public long insert(final Writer w, final ByteBuffer src)
    {
        w.beginOperation();
        final long deadline = Waits.deadline(w);
        while (!locks.tryLockAt(AvFileDescriptor.AUTH_KEY_LOCK_OFFSET))
        {
            if (Waits.passed(deadline))
            {
                return -FiErrno.EAGAIN;
            }
            LockSupport.parkNanos(10_000);
        }
        // Marked like a slot operation (SlotTable#begin): if an Error cuts the insert short where no
        // handler can run, the lock and a claimed entry are given back later (Writer#hasLeftovers).
        w.authKeyLock = locks;
        final boolean repairPending = w.needsRepair;
        w.needsRepair = true;
        try
        {
            final long handle = insertLocked(w, src);
            w.needsRepair = repairPending;
            return handle;
        }
        finally
        {
            locks.unlockAt(AvFileDescriptor.AUTH_KEY_LOCK_OFFSET);
            w.authKeyLock = null;
        }
    }

    private long insertLocked(final Writer w, final ByteBuffer src)
    {
        final int size = keySize();
        for (int i = 0; i < capacity(); i++)
        {
            final int e = layout.authKey(i);
            long s = m.getLongAcquire(e);
            // No other process adds keys meanwhile (we hold the lock), but the state word still moves:
            // another reference dropped, or a pin of setUserId taken or dropped, none of which holds the
            // lock. So a failed CAS means "look again": only a state that is no longer VALID, or another
            // incarnation of the entry, ends the look at this entry.
            while (state(s) == VALID && m.bytesEqual(e + KEY, src, src.position(), size))
            {
                if (payload(s) >= MAX_REFS)
                {
                    return -FiErrno.EOVERFLOW;
                }
                if (m.compareAndSetLong(e, s, word(VALID, payload(s) + 1, generation(s))))
                {
                    return i;
                }
                final long now = m.getLongVolatile(e);
                if (!sameIncarnation(s, now))
                {
                    break; // freed (and perhaps reused): the key bytes seen belonged to the entry that is gone
                }
                s = now;
            }
        }
        for (int i = 0; i < capacity(); i++)
        {
            final int e = layout.authKey(i);
            final long s = m.getLongVolatile(e);
            final long claimed = word(CLAIMED, w.index(), generation(s));
            if (state(s) == FREE && m.compareAndSetLong(e, s, claimed))
            {
                m.copyIn(e + KEY, src, src.position(), size);
                m.putLong(e + USER_ID, -1L);
                // CAS from our own claim word: a claim undone by someone else publishes nothing
                if (m.compareAndSetLong(e, claimed, word(VALID, 1, generation(s))))
                {
                    return i;
                }
            }
        }
        return -FiErrno.ENOSPC;
    }

    /** Copies the key of handle {@code index} (truncated to {@code dst.remaining()}); its size, or -1 when invalid. */
    public int lookup(final long index, final ByteBuffer dst)
    {
        if (index < 0 || index >= capacity())
        {
            return -1;
        }
        final int e = layout.authKey((int)index);
        while (true)
        {
            final long before = m.getLongAcquire(e);
            if (state(before) != VALID)
            {
                return -1;
            }
            m.copyOut(e + KEY, dst, Math.min(keySize(), dst.remaining()));
            VarHandle.acquireFence(); // the copy is done before the state is read again (seqlock read)
            if (sameIncarnation(before, m.getLong(e)))
            {
                return keySize();
            }
        }
    }

    /** Drops a reference; at the last one the entry is freed. 0, or -EINVAL when invalid. */
    public int release(final long index)
    {
        if (index < 0 || index >= capacity())
        {
            return -FiErrno.EINVAL;
        }
        final int e = layout.authKey((int)index);
        while (true)
        {
            final long s = m.getLongVolatile(e);
            if (state(s) != VALID)
            {
                return -FiErrno.EINVAL;
            }
            final long refs = payload(s);
            final long next = refs > 1 ? word(VALID, refs - 1, generation(s)) : word(FREE, 0, generation(s) + 1);
            if (m.compareAndSetLong(e, s, next))
            {
                return 0;
            }
        }
    }

    /** Sets the user id of a VALID handle; false when invalid. */
    public boolean setUserId(final long index, final long userId)
    {
        if (index < 0 || index >= capacity())
        {
            return false;
        }
        final int e = layout.authKey((int)index);
        while (true)
        {
            // Pinned by a reference while the user id is stored: freed and reused meanwhile, the entry
            // would get another key's user id.
            final long s = m.getLongVolatile(e);
            if (state(s) != VALID || payload(s) == 0 || payload(s) >= MAX_REFS)
            {
                return false;
            }
            if (m.compareAndSetLong(e, s, word(VALID, payload(s) + 1, generation(s))))
            {
                break;
            }
        }
        m.setLongVolatile(e + USER_ID, userId);
        release(index);
        return true;
    }

    /** Frees entries left CLAIMED by dead attacher {@code a}. */
    static int repair(final Memory m, final AvLayout layout, final int a)
    {
        int repaired = 0;
        for (int i = 0; i < layout.authKeysCapacity(); i++)
        {
            final int e = layout.authKey(i);
            final long s = m.getLongVolatile(e);
            if (state(s) == CLAIMED && payload(s) == a && m.compareAndSetLong(e, s, word(FREE, 0, generation(s) + 1)))
            {
                repaired++;
            }
        }
        return repaired;
    }
}
