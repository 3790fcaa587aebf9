package org.shmav.shm;

import org.agrona.BitUtil;

/**
 * One slot of the slot table: the entry at one index.
 *
 * <pre>
 *   0 |                state word (see below)                 |
 *   8 |                user id (FI_ADDR_NOTAVAIL = unset)     |
 *  16 |          auth-key index (FI_ADDR_NOTAVAIL = none)     |
 *  24 |         addrLen (u32)        |      reserved (u32)    |
 *  32 | address bytes (addrLen bytes, padded to 8) ...        |
 *     slotLength = align(32 + align(maxAddrLen, 8), 64)
 *
 *   state word, u64:
 *   63                      36 35                       4 3      0
 *   +-------------------------+--------------------------+--------+
 *   |  generation (28 bits)   | payload (32 bits)        | state  |
 *   +-------------------------+--------------------------+--------+
 *   payload = reference count while VALID, owner's attacher index in every other state but FREE.
 *
 *            CAS (claim)           CAS (commit, owner)          CAS (publish: owner, helper, recoverer)
 *   FREE(g) ------------> CLAIMED(a,g) ----------> PUBLISHING(a,g) ----------> VALID(refs,g) --+ refs+1 / refs-1
 *     ^                    |       |                                             |    ^-------+
 *     |     CAS (undo)      |       | CAS (cancel: another inserter of the key)   | CAS (last reference)
 *     |                     v       v                                             v
 *     +--------------- FREE(g+1) <-- CANCELLED(a,g)                         REMOVING(a,g) --> FREE(g+1)
 * </pre>
 *
 * Only the CAS that moves a slot out of FREE makes a process its writer. The address bytes are
 * written while CLAIMED and never change until the slot is FREE again with a new generation, so a
 * reader that sees the same generation and VALID before and after copying has an untorn copy. A
 * PUBLISHING slot is committed: its bytes are complete and indexed, and any writer may publish it;
 * a CANCELLED one will never be published, and only its owner (or the owner's recoverer) frees it.
 *
 * <p>Readers' rule (layout 8, shm-layout.md, Count): a slot is an <em>entry</em> from its commit to its
 * removal, that is while PUBLISHING or VALID with a reference ({@link #isEntry}); every reader (lookup,
 * reverse lookup, iteration, tools, the C reader) and the count agree on that one predicate, so that
 * nobody waits for a writer stopped between its commit and its publish.
 */
public final class SlotDescriptor
{
    /** u64: state, payload and generation. */
    public static final int STATE_OFFSET = 0;
    /** u64: user id set with FI_AV_USER_ID or setUserId; {@link #NO_USER_ID} until then. */
    public static final int USER_ID_OFFSET = 8;
    /**
     * The user id of an entry that was given none: FI_ADDR_NOTAVAIL, libfabric's default. A per-insert user
     * id equal to it is no id: the new entry's is this one, and an entry the address already had keeps its own.
     */
    public static final long NO_USER_ID = -1L;
    /** u64: the auth-key index (not the handle 2^62 | k) the address is bound to, or FI_ADDR_NOTAVAIL. */
    public static final int AUTH_KEY_OFFSET = 16;
    /** u32: bytes of the stored address. */
    public static final int ADDR_LEN_OFFSET = 24;
    /** First address byte. */
    public static final int ADDR_OFFSET = 32;

    /** Slot never used, or freed. */
    public static final int FREE = 0;
    /** A writer owns the slot and is filling it. */
    public static final int CLAIMED = 1;
    /** Published: lookups see it. */
    public static final int VALID = 2;
    /** The last reference was dropped; a writer is taking it out of the index. */
    public static final int REMOVING = 3;
    /**
     * Layout 7: the owner committed its claim (filled, indexed, counted in its journal): whoever gets
     * there first (the owner, an inserter of the same address, a recoverer) publishes it.
     */
    public static final int PUBLISHING = 4;
    /**
     * Layout 7: another inserter of the same address cancelled the claim before it was committed: it
     * is never published; its owner, or the owner's recoverer, undoes it.
     */
    public static final int CANCELLED = 5;

    static final int STATE_BITS = 4;
    static final long STATE_MASK = (1L << STATE_BITS) - 1;
    static final int PAYLOAD_SHIFT = 4;
    static final long PAYLOAD_MASK = 0xFFFF_FFFFL << PAYLOAD_SHIFT;
    static final int GENERATION_SHIFT = 36;
    static final long GENERATION_MASK = (1L << 28) - 1;
    /** Most references one entry can hold. */
    public static final long MAX_REFS = 0xFFFF_FFFFL;

    private SlotDescriptor()
    {
    }

    /** Bytes per slot for addresses of at most {@code maxAddrLen} bytes. */
    public static int slotLength(final int maxAddrLen)
    {
        return (int)BitUtil.align(ADDR_OFFSET + BitUtil.align((long)maxAddrLen, 8), 64);
    }

    public static int state(final long word)
    {
        return (int)(word & STATE_MASK);
    }

    public static long payload(final long word)
    {
        return (word & PAYLOAD_MASK) >>> PAYLOAD_SHIFT;
    }

    public static long generation(final long word)
    {
        return word >>> GENERATION_SHIFT;
    }

    public static long word(final int state, final long payload, final long generation)
    {
        return ((generation & GENERATION_MASK) << GENERATION_SHIFT) | (payload << PAYLOAD_SHIFT) | state;
    }

    /**
     * True when {@code word} is an entry to readers: committed (PUBLISHING: complete, indexed, counted,
     * publishable by anyone) or VALID with at least one reference.
     */
    public static boolean isEntry(final long word)
    {
        final int state = state(word);
        return state == VALID ? (word & PAYLOAD_MASK) != 0 : state == PUBLISHING; // VALID first: a lookup's usual case
    }

    /**
     * A reader's seqlock check: {@code after} is still an entry of the incarnation {@code before} was
     * (the same generation; PUBLISHING then VALID is one entry, whose bytes did not change).
     */
    public static boolean sameEntry(final long before, final long after)
    {
        return isEntry(after) && generation(before) == generation(after);
    }

    /** The same slot incarnation: equal state and generation (references may differ). */
    public static boolean sameIncarnation(final long a, final long b)
    {
        return (a & ~PAYLOAD_MASK) == (b & ~PAYLOAD_MASK);
    }

    public static String stateName(final int state)
    {
        switch (state)
        {
            case FREE: return "FREE";
            case CLAIMED: return "CLAIMED";
            case VALID: return "VALID";
            case REMOVING: return "REMOVING";
            case PUBLISHING: return "PUBLISHING";
            case CANCELLED: return "CANCELLED";
            default: return "?" + state;
        }
    }
}
