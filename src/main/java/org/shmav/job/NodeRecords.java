package org.shmav.job;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.shmav.AddrFormat;

/**
 * A node's addresses on their way to the launcher's store: each rank of the node hands its address to
 * the node's local rank 0 through its record in the job file (no store round trip), and local rank 0
 * packs the node's records into one block, the value it publishes for the whole node.
 *
 * <pre>
 * record of participant i, in the job file at {@link JobFile#recordAt(int)}, little-endian:
 *   0  kind      int: 0 none yet, 1 an address, 2 the rank could not open (written last)
 *   4  rank      int: the participant's rank in the job
 *   8  length    int: bytes that follow, at most {@link #MAX_DATA}
 *  12  data      the address's bytes as the AV stores them, or the failure's errno name (ASCII)
 *
 * block, one entry per rank of the node, in local rank order, little-endian:
 *   rank     int
 *   length   short: the address's length; -1 - n for a rank that could not open, n bytes of errno name follow
 *   data     length (or n) bytes
 * </pre>
 *
 * A record's kind is written after its other fields in a write of its own, so a reader that sees the kind sees them.
 * Stateless.
 */
final class NodeRecords
{
    /** The longest address (or failure text) a record holds: the longest address an AV stores. */
    static final int MAX_DATA = AddrFormat.MAX_OPAQUE_LEN;
    /** Bytes per participant's record: its 12 bytes of fields and {@link #MAX_DATA}, in 16-byte steps. */
    static final int SIZE = (12 + MAX_DATA + 15) & ~15;
    static final int NONE = 0;
    static final int ADDRESS = 1;
    static final int FAILED = 2;
    /** The failure text of a rank that waits for the job without having published an address. */
    static final String NOTHING = "-";

    /** One rank's entry: its address, or (address null) the errno name of its failure. */
    record Entry(int rank, byte[] address, String failure)
    {
    }

    private NodeRecords()
    {
    }

    /** Participant {@code participant} (rank {@code rank}) hands its address, or its failure, to local rank 0. */
    static void write(final JobFile file, final int participant, final int rank, final byte[] data, final int kind)
        throws IOException
    {
        if (data.length > MAX_DATA)
        {
            throw new IllegalArgumentException("an address of " + data.length + " bytes; a node's record holds " + MAX_DATA);
        }
        final ByteBuffer b = ByteBuffer.allocate(12 + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(4, rank).putInt(8, data.length).put(12, data);
        final long at = file.recordAt(participant);
        file.writeAt(b.position(4), at + 4);
        file.writeAt(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, kind), at);
    }

    /** Participant {@code participant}'s entry, or null while it has handed nothing. */
    static Entry read(final JobFile file, final int participant) throws IOException
    {
        final long at = file.recordAt(participant);
        final ByteBuffer h = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        file.readAt(h, at);
        final int kind = h.getInt(0);
        if (kind == NONE)
        {
            return null;
        }
        final int length = h.getInt(8);
        if (kind != ADDRESS && kind != FAILED || length < 0 || length > MAX_DATA)
        {
            throw new IOException("participant " + participant + "'s record in " + "the job file is damaged (kind " + kind +
                ", length " + length + ")");
        }
        final byte[] data = new byte[length];
        file.readAt(ByteBuffer.wrap(data), at + 12);
        return kind == ADDRESS ? new Entry(h.getInt(4), data, null) :
            new Entry(h.getInt(4), null, new String(data, StandardCharsets.US_ASCII));
    }

    /** The node's block: its entries packed as the class comment shows. */
    static byte[] pack(final List<Entry> entries)
    {
        int bytes = 0;
        for (final Entry e : entries)
        {
            bytes += 6 + (e.address() != null ? e.address().length : e.failure().length());
        }
        final ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (final Entry e : entries)
        {
            final byte[] data = e.address() != null ? e.address() : e.failure().getBytes(StandardCharsets.US_ASCII);
            b.putInt(e.rank()).putShort((short)(e.address() != null ? data.length : -1 - data.length)).put(data);
        }
        return b.array();
    }

    /**
     * The entries of a node's block.
     *
     * @throws IllegalArgumentException when the block is cut short or a rank is outside 0 .. size-1
     */
    static List<Entry> unpack(final byte[] block, final int size)
    {
        final ByteBuffer b = ByteBuffer.wrap(block).order(ByteOrder.LITTLE_ENDIAN);
        final List<Entry> entries = new ArrayList<>();
        while (b.hasRemaining())
        {
            if (b.remaining() < 6)
            {
                throw new IllegalArgumentException("cut short after " + entries.size() + " entries");
            }
            final int rank = b.getInt();
            final int length = b.getShort();
            final int n = length >= 0 ? length : -1 - length;
            if (rank < 0 || rank >= size || n > b.remaining())
            {
                throw new IllegalArgumentException("entry " + entries.size() + ": rank " + rank + ", " + n + " bytes of " +
                    b.remaining() + " left");
            }
            final byte[] data = new byte[n];
            b.get(data);
            entries.add(length >= 0 ? new Entry(rank, data, null) : new Entry(rank, null, new String(data, StandardCharsets.US_ASCII)));
        }
        if (entries.isEmpty())
        {
            throw new IllegalArgumentException("no entries");
        }
        return entries;
    }
}
