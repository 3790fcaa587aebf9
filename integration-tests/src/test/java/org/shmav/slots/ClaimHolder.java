package org.shmav.slots;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvFileDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;
import org.shmav.shm.SlotDescriptor;

/**
 * A child JVM of {@code ClaimHelpIT}: a writer that stops inside an insert, holding its claim, so that
 * the parent can freeze it there. It takes an attacher entry of the AV, claims the lowest FREE slot,
 * writes address number k into it and places its entry in the index (the steps of an insert before
 * its publish; mode {@code decided} also commits the claim, PUBLISHING, and mode {@code unjournaled}
 * makes the commit's CAS but stops before its journal counts it), prints {@code holding slot i},
 * waits for the file {@code go}, then runs its publish and prints {@code published r}; a publish whose
 * claim was cancelled meanwhile (negative r) inserts the address again, as the insert would, and prints
 * {@code inserted r}. Last it prints {@code count n}. In this package for the insert's own steps.
 * Arguments: AV file, k, mode ({@code claimed}, {@code decided} or {@code unjournaled}), directory of the go file.
 */
public final class ClaimHolder
{
    private ClaimHolder()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Region r = ToolAccess.openForRepair(Path.of(args[0]));
        final ByteBuffer a = address(Integer.parseInt(args[1]));
        final SlotTable table = r.table();
        final Writer w = r.writer();
        final long slot = claimFilledIndexed(r, w, a);
        if (args[2].equals("decided"))
        {
            System.out.println("decided " + table.commitClaim(w, 0));
        }
        final boolean unjournaled = args[2].equals("unjournaled");
        if (unjournaled)
        {
            System.out.println("committed " + commitBeforeJournal(r, w, slot));
        }
        System.out.println("holding slot " + slot);
        final Path go = Path.of(args[3], "go");
        final long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(go))
        {
            if (System.nanoTime() - deadline > 0)
            {
                System.exit(2);
            }
            Thread.sleep(1);
        }
        if (unjournaled)
        {
            w.journal(AttacherDescriptor.journal(w.delta() + 1, AttacherDescriptor.OP_NONE, 0)); // the rest of the commit
        }
        final long published = table.publishClaim(w, 0);
        System.out.println("published " + published);
        if (published < 0)
        {
            w.startCall();
            System.out.println("inserted " + table.insert(w, a, 0, 16, -1L, Long.MIN_VALUE, 0));
        }
        System.out.println("count " + table.count());
        r.detach();
    }

    /**
     * The commit's first steps alone (map_addr, journal OP_PUBLISH, the CAS to PUBLISHING), as
     * {@code ClaimCommit.commit} makes them, stopping right before its journal counts the entry: where a
     * writer frozen or killed between its commit and its journal update stands. True when the CAS won.
     */
    static boolean commitBeforeJournal(final Region r, final Writer w, final long index)
    {
        final Memory m = r.memory();
        m.setLongRelease(r.layout().map(index), index); // FI_AV_TABLE: fi_addr = index
        w.journal(AttacherDescriptor.journal(w.delta(), AttacherDescriptor.OP_PUBLISH, index));
        final long committed = SlotDescriptor.word(SlotDescriptor.PUBLISHING, w.index, SlotDescriptor.generation(w.claimWord));
        final boolean won = m.compareAndSetLong(r.layout().slot(index) + SlotDescriptor.STATE_OFFSET, w.claimWord, committed);
        if (won)
        {
            w.claimWord = committed;
        }
        return won;
    }

    /** The FI_SOCKADDR_IN address number k of the parent's {@code InetRange}. */
    static ByteBuffer address(final int k)
    {
        final ByteBuffer b = ByteBuffer.allocate(16);
        b.order(ByteOrder.nativeOrder()).putShort(0, (short)2);
        b.order(ByteOrder.BIG_ENDIAN).putShort(2, (short)(1 + (k >>> 24)));
        b.put(4, (byte)10).put(5, (byte)(k >>> 16)).put(6, (byte)(k >>> 8)).put(7, (byte)k);
        return b;
    }

    /**
     * Claim, fill and place, as an insert does before its publish (the claim recorded in {@code w});
     * also used by {@code ClaimHelpTest}.
     */
    static long claimFilledIndexed(final Region r, final Writer w, final ByteBuffer a)
    {
        final Memory m = r.memory();
        final AvLayout layout = r.layout();
        final long index = new FreeSlots(m, layout).claimLowest(w);
        final int slot = layout.slot(index);
        m.putInt(slot + SlotDescriptor.ADDR_LEN_OFFSET, 16);
        m.copyIn(slot + SlotDescriptor.ADDR_OFFSET, a, 0, 16);
        m.putLong(slot + SlotDescriptor.AUTH_KEY_OFFSET, -1L);
        m.putLong(slot + SlotDescriptor.USER_ID_OFFSET, -1L);
        final long hash = DedupIndex.hash(a, 0, 16, -1L);
        final long state = m.getLongVolatile(AvFileDescriptor.INDEX_STATE_OFFSET);
        final long base = layout.hashArea(IndexWord.activeSegment(state), IndexWord.activeArea(state));
        final long mask = layout.hashBuckets(IndexWord.activeSegment(state)) - 1;
        final long c = IndexWord.stamp(state);
        for (long b = hash & mask; ; b = (b + 1) & mask)
        {
            final int offset = (int)(base + b * Long.BYTES);
            final long v = m.getLongVolatile(offset);
            if (DedupIndex.kind(v, c) == DedupIndex.EMPTY && m.compareAndSetLong(offset, v, IndexWord.entry(c, hash, index)))
            {
                return index;
            }
        }
    }
}
