package org.shmav.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The insert benchmarks fail a measured iteration whose timed loop allocated a byte. When the JIT is
 * asked to compile a method, the thread that asked resolves every string constant of the method's class
 * first, allocating each one not resolved yet: a failure message in the class of the timed loop was so
 * allocated inside the loop ("the insert loop allocated 152 bytes", two messages and their arrays). So
 * the classes whose methods run the timed loop hold only the string constants their set-up resolves
 * before the loop starts; messages live in {@link LoopChecks}. This reads their class files' constant pools.
 */
class InsertLoopStringsTest
{
    /** The one string constant allowed: the AV name prefix, resolved by the set-up of every iteration. */
    private static final List<String> RESOLVED_BEFORE_THE_LOOP = List.of("insert");

    @Test
    void timedLoopClassesHoldNoStringTheLoopCouldResolve() throws IOException
    {
        for (final Class<?> c : List.of(AbstractInsertBench.class, InsertBench.class, InsertBench100k.class,
            InsertBench8M.class, GrowthInsertBench.class, Allocation.class))
        {
            final List<String> strings = stringConstants(c);
            strings.removeAll(RESOLVED_BEFORE_THE_LOOP);
            assertEquals(List.of(), strings, c.getSimpleName() + "'s string constants (move messages to LoopChecks)");
        }
    }

    @Test
    void readsTheMessagesWhereTheyLive() throws IOException
    {
        assertTrue(stringConstants(LoopChecks.class).contains("the insert loop allocated \u0001 bytes"),
            "the constant pool reader finds a string-concat recipe");
    }

    /** The CONSTANT_String entries of {@code c}'s class file (string-concat recipes included). */
    static List<String> stringConstants(final Class<?> c) throws IOException
    {
        try (InputStream raw = c.getResourceAsStream(c.getSimpleName() + ".class"))
        {
            assertNotNull(raw, c + " has no class file");
            final DataInputStream in = new DataInputStream(raw);
            in.readInt(); // magic
            in.readInt(); // minor, major
            final int count = in.readUnsignedShort();
            final String[] utf8 = new String[count];
            final int[] stringIndex = new int[count];
            for (int i = 1; i < count; i++)
            {
                final int tag = in.readUnsignedByte();
                switch (tag)
                {
                    case 1 -> utf8[i] = in.readUTF();
                    case 8 -> stringIndex[i] = in.readUnsignedShort();
                    case 7, 16, 19, 20 -> in.readUnsignedShort();
                    case 15 -> in.skipBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                    case 5, 6 ->
                    {
                        in.readLong();
                        i++; // a long or double takes two entries
                    }
                    default -> throw new IOException("constant pool tag " + tag + " of " + c);
                }
            }
            final List<String> strings = new ArrayList<>();
            for (int i = 1; i < count; i++)
            {
                if (stringIndex[i] != 0)
                {
                    strings.add(utf8[stringIndex[i]]);
                }
            }
            return strings;
        }
    }
}
