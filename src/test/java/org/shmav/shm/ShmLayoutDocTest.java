package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.shmav.AddressVector;
import org.shmav.Addresses;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.it.TestDir;

/** shm-layout.md must say what the code does: its field tables and its example dump are checked here. */
class ShmLayoutDocTest
{
    private static final Path DOC = Path.of("shm-layout.md");

    private record Row(String owner, int offset, String constant)
    {
    }

    private static List<Row> rows() throws Exception
    {
        final List<Row> rows = new ArrayList<>();
        String owner = null;
        for (final String line : Files.readAllLines(DOC))
        {
            if (line.startsWith("<!-- fields: "))
            {
                owner = line.substring("<!-- fields: ".length(), line.indexOf(" -->"));
            }
            else if (owner != null && line.startsWith("| ") && !line.startsWith("| offset") && !line.startsWith("|---"))
            {
                final String[] cells = line.split("\\|");
                rows.add(new Row(owner, Integer.parseInt(cells[1].trim()), cells[5].trim()));
            }
            else if (!line.startsWith("|"))
            {
                owner = line.isBlank() || line.startsWith("|") ? owner : null;
            }
        }
        return rows;
    }

    @Test
    void shouldDocumentEveryFieldAtItsOffset() throws Exception
    {
        final List<Row> rows = rows();
        assertTrue(rows.size() > 40, "tables found: " + rows.size());
        for (final Row row : rows)
        {
            final Field f = Class.forName(row.owner()).getField(row.constant());
            assertEquals(f.getInt(null), row.offset(), row.owner() + "." + row.constant());
        }
    }

    @Test
    void shouldLeaveNoOffsetConstantUndocumented() throws Exception
    {
        final Set<String> documented = new HashSet<>();
        for (final Row row : rows())
        {
            documented.add(row.owner() + "." + row.constant());
        }
        for (final Class<?> c : List.of(AvFileDescriptor.class, SlotDescriptor.class, AttacherDescriptor.class))
        {
            for (final Field f : c.getFields())
            {
                final boolean offset = f.getName().endsWith("_OFFSET") || f.getName().startsWith("SEGMENT_");
                if (Modifier.isStatic(f.getModifiers()) && offset && !f.getName().equals("SEGMENT_ENTRY_LENGTH"))
                {
                    assertTrue(documented.contains(c.getName() + "." + f.getName()), f.getName() + " is not in shm-layout.md");
                }
            }
        }
    }

    /** The EXAMPLE dump must be what the code writes, except process-specific fields (pids, times, tokens). */
    @Test
    void shouldMatchTheExampleDumpByteForByte() throws Exception
    {
        final Path dir = TestDir.createInShm("layoutdoc");
        try (Domain d = Domain.open(DomainAttr.builder().shmDirectory(dir).build());
             AddressVector av = d.openAv(AvAttr.builder().name("tiny").count(2).mapAddr(0x10000).build()))
        {
            av.insert(Addresses.toSockaddr(new InetSocketAddress("10.0.0.1", 5000)), 1, null, 0, null);
            final byte[] file = Files.readAllBytes(dir.resolve("tiny"));
            int checked = 0;
            boolean inExample = false;
            for (final String line : Files.readAllLines(DOC))
            {
                inExample |= line.equals("## EXAMPLE");
                if (!inExample || !line.matches("    [0-9a-f]{8}  .*"))
                {
                    continue;
                }
                final String note = line.substring(4 + 8 + 2 + 16 * 3 + 1);
                if (note.contains("pid") || note.contains("Millis") || note.contains("token") || note.contains("time") ||
                    note.contains("attached") || note.contains("lockFile"))
                {
                    continue;
                }
                final int offset = Integer.parseInt(line.substring(4, 12), 16);
                final String[] bytes = line.substring(14, 14 + 16 * 3 + 1).trim().split("\\s+");
                for (int i = 0; i < 16; i++)
                {
                    assertEquals(Integer.parseInt(bytes[i], 16), file[offset + i] & 0xFF,
                        String.format("byte 0x%x (%s)", offset + i, note));
                }
                checked++;
            }
            assertTrue(checked >= 15, "example lines checked: " + checked);
            assertEquals(81920, file.length);
        }
        finally
        {
            try (var files = Files.list(dir))
            {
                for (final Path p : files.toList())
                {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
        assertFalse(Files.exists(dir));
    }
}
