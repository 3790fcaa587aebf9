package org.shmav.slots;

import static org.shmav.shm.SlotDescriptor.*;

import java.nio.ByteBuffer;

import org.shmav.FiErrno;
import org.shmav.shm.AvLayout;
import org.shmav.shm.Memory;

/**
 * The auth-key section of an AV region: authorization keys inserted with {@code fi_av_insert_auth_key},
 * each at an index that is its auth-key handle.
 *
 * <pre>
 *   0 | state word: FREE, CLAIMED(owner) or VALID(refs), encoded as a slot's state word |
 *   8 | user id (FI_ADDR_NOTAVAIL = unset)                                              |
 *  16 | key bytes (authKeySize, padded to 8)                                            |
 * </pre>
 *
 * Entries are claimed by CAS from FREE, filled, then published by CAS to VALID, like slots. A key
 * inserted again takes a reference on its entry. Two processes inserting the same new key at the very
 * same moment may get two handles (the table is small and keys are set up once per job, so it has no
 * index); each handle works on its own.
 */
public final class AuthKeyTable
{
    private static final int USER_ID = 8;
    private static final int KEY = 16;

    private final Memory m;
    private final AvLayout layout;

    public AuthKeyTable(final Memory m, final AvLayout layout)
    {
        this.m = m;
        this.layout = layout;
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

    /** Inserts a key ({@code keySize} bytes at {@code src}'s position) or references its twin; the handle or -ENOSPC. */
    public long insert(final SlotTable.Writer w, final ByteBuffer src)
    {
        final int size = keySize();
        for (int i = 0; i < capacity(); i++)
        {
            final int e = layout.authKey(i);
            final long s = m.getLongAcquire(e);
            if (state(s) == VALID && m.bytesEqual(e + KEY, src, src.position(), size) &&
                m.compareAndSetLong(e, s, word(VALID, payload(s) + 1, generation(s))))
            {
                return i;
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
        if (!isValid(index))
        {
            return -1;
        }
        m.copyOut(layout.authKey((int)index) + KEY, dst, Math.min(keySize(), dst.remaining()));
        return keySize();
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
        if (!isValid(index))
        {
            return false;
        }
        m.setLongVolatile(layout.authKey((int)index) + USER_ID, userId);
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
