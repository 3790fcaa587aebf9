package org.shmav.cli;

import static org.shmav.shm.AvFileDescriptor.*;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import net.openhft.chronicle.bytes.HexDumpBytes;
import org.shmav.AddrFormat;
import org.shmav.Addresses;
import org.shmav.AvType;
import org.shmav.shm.AttacherDescriptor;
import org.shmav.shm.AvLayout;
import org.shmav.shm.GrowthClaim;
import org.shmav.shm.IndexWord;
import org.shmav.shm.Memory;
import org.shmav.slots.Region;
import org.shmav.shm.SlotDescriptor;

/**
 * An annotated hex dump of an AV file (Chronicle Bytes' {@link HexDumpBytes}): the header field by
 * field, the segment table, the used attacher entries and the used slots, each line with the file
 * offset and what the bytes mean. The only class that touches Chronicle Bytes, so that the other
 * commands do not load it (it needs the JVM flags scripts/shmav sets).
 */
final class AvHexDump
{
    private final Memory m;
    private final Region region;
    private final AvLayout layout;
    private final StringBuilder text = new StringBuilder();
    /** The sections for {@code dump --json}, or null for the text dump. */
    private final List<Object> sections;
    private int more;

    private AvHexDump(final Region region, final boolean json)
    {
        this.region = region;
        this.m = region.memory();
        this.layout = region.layout();
        this.sections = json ? new ArrayList<>() : null;
    }

    /** One field: {@code length} bytes at a file offset, and the comment printed beside them. */
    private record Field(long offset, int length, String comment)
    {
    }

    /** The dump of {@code region}, with at most {@code maxSlots} used slots. */
    static String of(final Region region, final int maxSlots)
    {
        final AvHexDump d = new AvHexDump(region, false);
        d.header();
        d.attachers();
        d.slots(maxSlots);
        return d.text.toString();
    }

    /**
     * The same fields for {@code dump --json}: {@code sections} (each a {@code title}, null for a lone
     * field, and its {@code fields}: {@code offset}, {@code length}, {@code hex}, {@code meaning}) and
     * {@code moreSlots}, the used slots left out by the limit. No Chronicle Bytes needed.
     */
    static Map<String, Object> json(final Region region, final int maxSlots)
    {
        final AvHexDump d = new AvHexDump(region, true);
        d.header();
        d.attachers();
        d.slots(maxSlots);
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("sections", d.sections);
        m.put("moreSlots", d.more);
        return m;
    }

    private void header()
    {
        final int version = m.getInt(VERSION_OFFSET);
        final int format = m.getInt(ADDR_FORMAT_OFFSET);
        final int type = m.getInt(AV_TYPE_OFFSET);
        final List<Field> f = new ArrayList<>();
        f.add(new Field(MAGIC_OFFSET, 8, "magic \"shmav-av\""));
        f.add(new Field(VERSION_OFFSET, 4, "version " + (version >>> 16) + "." + (version & 0xFFFF) +
            (version != 0 ? " (ready)" : " (NOT READY)")));
        f.add(new Field(HEADER_LENGTH_OFFSET, 4, "headerLength " + m.getInt(HEADER_LENGTH_OFFSET)));
        f.add(new Field(ADDR_FORMAT_OFFSET, 4, "addrFormat " + format + " = " + name(AddrFormat.ofValue(format))));
        f.add(new Field(ADDR_LEN_OFFSET, 4, "addrLen " + m.getInt(ADDR_LEN_OFFSET)));
        f.add(new Field(AV_TYPE_OFFSET, 4, "avType " + type + " = " + (AvType.ofValue(type) == null ? "?" :
            AvType.ofValue(type).fiName())));
        f.add(new Field(SLOT_LENGTH_OFFSET, 4, "slotLength " + m.getInt(SLOT_LENGTH_OFFSET)));
        f.add(new Field(CAPACITY_OFFSET, 8, "capacity " + m.getLong(CAPACITY_OFFSET)));
        f.add(new Field(MAP_ADDR_BASE_OFFSET, 8, String.format("mapAddrBase 0x%x", m.getLong(MAP_ADDR_BASE_OFFSET))));
        f.add(new Field(CREATOR_PID_OFFSET, 8, "creatorPid " + m.getLong(CREATOR_PID_OFFSET)));
        f.add(new Field(CREATOR_START_OFFSET, 8, "creatorStartMillis " + Text.time(m.getLong(CREATOR_START_OFFSET))));
        f.add(new Field(FILE_LENGTH_OFFSET, 8, "fileLength " + m.getLong(FILE_LENGTH_OFFSET)));
        f.add(new Field(AV_FLAGS_OFFSET, 8, String.format("avFlags 0x%x", m.getLong(AV_FLAGS_OFFSET))));
        f.add(new Field(RX_CTX_BITS_OFFSET, 4, "rxCtxBits " + m.getInt(RX_CTX_BITS_OFFSET)));
        f.add(new Field(AUTH_KEY_SIZE_OFFSET, 4, "authKeySize " + m.getInt(AUTH_KEY_SIZE_OFFSET)));
        f.add(new Field(ATTACHERS_CAPACITY_OFFSET, 4, "attachersCapacity " + m.getInt(ATTACHERS_CAPACITY_OFFSET)));
        f.add(new Field(AUTH_KEYS_CAPACITY_OFFSET, 4, "authKeysCapacity " + m.getInt(AUTH_KEYS_CAPACITY_OFFSET)));
        f.add(offsetField(ATTACHERS_OFFSET_OFFSET, "attachersOffset"));
        f.add(offsetField(AUTH_KEYS_OFFSET_OFFSET, "authKeysOffset"));
        f.add(offsetField(HASH_OFFSET_OFFSET, "hashOffset"));
        f.add(new Field(HASH_BUCKETS_OFFSET, 8, "hashBuckets " + m.getLong(HASH_BUCKETS_OFFSET)));
        f.add(new Field(SEGMENT_COUNT_OFFSET, 4, "segmentCount " + m.getInt(SEGMENT_COUNT_OFFSET)));
        f.add(new Field(ADDR_LEN_VARYING_OFFSET, 4, "addrLenVarying " + m.getInt(ADDR_LEN_VARYING_OFFSET)));
        f.add(new Field(CREATED_MILLIS_OFFSET, 8, "createdMillis " + Text.time(m.getLong(CREATED_MILLIS_OFFSET))));
        f.add(new Field(MAX_CAPACITY_OFFSET, 8, "maxCapacity " + m.getLong(MAX_CAPACITY_OFFSET)));
        block("header", f);
        final long claim = m.getLong(GROWTH_CLAIM_OFFSET);
        block(null, List.of(new Field(GROWTH_CLAIM_OFFSET, 8, "growthClaim: " + (GrowthClaim.segment(claim) == 0
                ? "none" : "segment " + GrowthClaim.segment(claim) + " by attacher " + GrowthClaim.owner(claim)) +
                ", ticket " + GrowthClaim.ticket(claim) + ", progress " + GrowthClaim.progress(claim)),
            new Field(FILE_TOP_OFFSET, 8, "fileTop " + m.getLong(FILE_TOP_OFFSET) + " (unused since layout 7)")));
        final long hint = m.getLong(FREE_HINT_OFFSET);
        block(null, List.of(new Field(FREE_HINT_OFFSET, 8, "freeHint: epoch " + (hint >>> 32) + ", lowest free >= " +
            (hint & 0xFFFF_FFFFL))));
        block(null, List.of(new Field(ATTACHERS_HIGH_WATER_OFFSET, 8, "attachersHighWater " +
            m.getLong(ATTACHERS_HIGH_WATER_OFFSET))));
        final long state = m.getLong(INDEX_STATE_OFFSET);
        block(null, List.of(new Field(INDEX_STATE_OFFSET, 8, "indexState: segment " + IndexWord.activeSegment(state) +
            " area " + IndexWord.activeArea(state) + " stamp " + IndexWord.stamp(state) + (IndexWord.migrating(state)
                ? ", migrating to segment " + IndexWord.targetSegment(state) + " area " + IndexWord.targetArea(state) +
                    " by attacher " + IndexWord.migrator(state)
                : ""))));
        block(null, List.of(new Field(FREE_GROUPS_OFFSET, 8, "free-group marks (first word): " +
            Text.count(markedGroups(), "group", "groups") + " of " + (1L << layout.freeGroupShift()) + " slots marked " +
                "as maybe holding a FREE slot")));
        for (int k = 0; k < layout.segments(); k++)
        {
            final int seg = segmentOffset(k);
            block("segment[" + k + "]: slots " + layout.segmentFirst(k) + ".." + (layout.segmentEnd(k) - 1), List.of(
                offsetField(seg + SEGMENT_SLOTS_OFFSET, "slotsOffset"),
                offsetField(seg + SEGMENT_HASH_OFFSET, "hashOffset")));
        }
    }

    /** How many free-group marks are set, over every group of the AV. */
    private long markedGroups()
    {
        final long groups = layout.freeGroups();
        long marked = 0;
        for (long g = 0; g < groups; g += Long.SIZE)
        {
            final long bits = m.getLong(freeGroupWordOffset(g));
            marked += Long.bitCount(groups - g >= Long.SIZE ? bits : bits & ((1L << (groups - g)) - 1));
        }
        return marked;
    }

    private void attachers()
    {
        final long highWater = Math.min(m.getLong(ATTACHERS_HIGH_WATER_OFFSET), layout.attachersCapacity());
        for (int a = 0; a < highWater; a++)
        {
            final int at = layout.attacher(a);
            final long token = m.getLong(at + AttacherDescriptor.TOKEN_OFFSET);
            final long journal = m.getLong(at + AttacherDescriptor.JOURNAL_OFFSET);
            block("attacher[" + a + "]", List.of(
                new Field(at + AttacherDescriptor.TOKEN_OFFSET, 8, tokenText(token, a)),
                new Field(at + AttacherDescriptor.JOURNAL_OFFSET, 8, "journal: delta " + AttacherDescriptor.delta(journal) +
                    ", op " + opName(AttacherDescriptor.op(journal)) + ", slot " + AttacherDescriptor.slot(journal)),
                new Field(at + AttacherDescriptor.PID_OFFSET, 8, "pid " + m.getLong(at + AttacherDescriptor.PID_OFFSET)),
                new Field(at + AttacherDescriptor.START_MILLIS_OFFSET, 8, "process start " +
                    Text.time(m.getLong(at + AttacherDescriptor.START_MILLIS_OFFSET))),
                new Field(at + AttacherDescriptor.ATTACHED_MILLIS_OFFSET, 8, "attached " +
                    Text.time(m.getLong(at + AttacherDescriptor.ATTACHED_MILLIS_OFFSET))),
                new Field(at + AttacherDescriptor.PHASE_OFFSET, 8, "phase " + m.getLong(at + AttacherDescriptor.PHASE_OFFSET)),
                new Field(at + AttacherDescriptor.PUBLISHED_OFFSET, 8, "published " +
                    m.getLong(at + AttacherDescriptor.PUBLISHED_OFFSET)),
                new Field(at + AttacherDescriptor.REMOVED_OFFSET, 8, "removed " +
                    m.getLong(at + AttacherDescriptor.REMOVED_OFFSET))));
        }
    }

    private void slots(final int maxSlots)
    {
        int shown = 0;
        for (long i = 0; i < layout.capacity(); i++)
        {
            final long word = region.table().stateWord(i);
            if (SlotDescriptor.state(word) == SlotDescriptor.FREE)
            {
                continue;
            }
            if (shown == maxSlots)
            {
                more++;
                continue;
            }
            shown++;
            slot(i, word);
        }
        if (more > 0 && sections == null)
        {
            text.append("# ... ").append(more).append(more == 1 ? " more used slot" : " more used slots").append(" (--limit)\n");
        }
    }

    private void slot(final long index, final long word)
    {
        final int at = layout.slot(index);
        final int len = m.getInt(at + SlotDescriptor.ADDR_LEN_OFFSET);
        final int state = SlotDescriptor.state(word);
        final String payload = state == SlotDescriptor.VALID ? "refs " + SlotDescriptor.payload(word)
            : "owner attacher[" + SlotDescriptor.payload(word) + "]" + (state == SlotDescriptor.PUBLISHING ? ", committed: an entry" : "");
        final List<Field> f = new ArrayList<>();
        f.add(new Field(at + SlotDescriptor.STATE_OFFSET, 8, "state " + SlotDescriptor.stateName(state) + ", " + payload +
            ", generation " + SlotDescriptor.generation(word)));
        f.add(new Field(at + SlotDescriptor.USER_ID_OFFSET, 8, idText("user id", m.getLong(at + SlotDescriptor.USER_ID_OFFSET))));
        f.add(new Field(at + SlotDescriptor.AUTH_KEY_OFFSET, 8, idText("auth key", m.getLong(at + SlotDescriptor.AUTH_KEY_OFFSET))));
        f.add(new Field(at + SlotDescriptor.ADDR_LEN_OFFSET, 4, "addrLen " + len));
        f.add(new Field(at + SlotDescriptor.ADDR_LEN_OFFSET + 4, 4, "reserved"));
        if (len > 0 && len <= layout.addrLen())
        {
            final ByteBuffer addr = m.buffer().slice(at + SlotDescriptor.ADDR_OFFSET, len);
            f.add(new Field(at + SlotDescriptor.ADDR_OFFSET, len, "address " +
                Addresses.text(layout.addrFormat(), addr)));
        }
        block("slot[" + index + "]", f);
    }

    /** Appends one run of consecutive fields, each line prefixed with its file offset. */
    private void block(final String title, final List<Field> fields)
    {
        if (sections != null)
        {
            jsonBlock(title, fields);
            return;
        }
        final long base = fields.get(0).offset();
        final HexDumpBytes h = new HexDumpBytes().offsetFormat((o, b) -> b.append(String.format("%08x ", base + o)));
        try
        {
            if (title != null)
            {
                h.writeHexDumpDescription(title + ":");
            }
            for (final Field field : fields)
            {
                h.writeHexDumpDescription(field.comment());
                final byte[] bytes = new byte[field.length()];
                m.buffer().get((int)field.offset(), bytes);
                h.write(bytes);
            }
            text.append(h.toHexString());
        }
        finally
        {
            h.releaseLast();
        }
    }

    private void jsonBlock(final String title, final List<Field> fields)
    {
        final List<Object> list = new ArrayList<>();
        for (final Field field : fields)
        {
            final StringBuilder hex = new StringBuilder();
            for (int i = 0; i < field.length(); i++)
            {
                hex.append(String.format("%02x", m.buffer().get((int)field.offset() + i)));
            }
            final Map<String, Object> f = new LinkedHashMap<>();
            f.put("offset", field.offset());
            f.put("length", field.length());
            f.put("hex", hex.toString());
            f.put("meaning", field.comment());
            list.add(f);
        }
        final Map<String, Object> section = new LinkedHashMap<>();
        section.put("title", title);
        section.put("fields", list);
        sections.add(section);
    }

    private Field offsetField(final int offset, final String name)
    {
        return new Field(offset, 8, String.format("%s 0x%x", name, m.getLong(offset)));
    }

    private String tokenText(final long token, final int attacher)
    {
        if (token == 0)
        {
            return "token 0: free";
        }
        return String.format("token %016x: %s", token, region.liveness().isHeld(attacher)
            ? "taken, lock held (live)" : "taken, lock free (dead: the next writer recovers it)");
    }

    private static String opName(final int op)
    {
        switch (op)
        {
            case AttacherDescriptor.OP_NONE: return "none";
            case AttacherDescriptor.OP_PUBLISH: return "publish";
            case AttacherDescriptor.OP_REMOVE: return "remove";
            default: return "counted";
        }
    }

    private static String idText(final String what, final long value)
    {
        return value == -1L ? what + " none" : what + " " + value;
    }

    private static String name(final AddrFormat format)
    {
        return format == null ? "?" : format.fiName();
    }
}
