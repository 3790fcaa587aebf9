package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * shm-layout.md says what the code does, beyond the tables {@link ShmLayoutDocTest} checks: every
 * value the text gives a constant ({@code MAX_SEGMENTS (32)}), the layout version wherever the page
 * states its own (read from {@link AvFileDescriptor}, so a version change is checked, not restated
 * here), the header's lock bytes by what they are called, the slot states and journal ops by number,
 * and every step a section refers to in WRITER'S CHECKLIST ("Insert, step 4.7") exists there.
 */
class ShmLayoutValuesTest
{
    private static final Path DOC = Path.of("shm-layout.md");
    private static final List<Class<?>> CLASSES = List.of(AvFileDescriptor.class, SlotDescriptor.class,
        AttacherDescriptor.class, IndexWord.class, GrowthClaim.class, SegmentFile.class);
    /** {@code NAME (value)} or {@code `NAME` (value)}: a constant and the value the text gives it. */
    private static final Pattern NAMED_VALUE = Pattern.compile(
        "(?<![A-Za-z0-9_.])`?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`? \\((0x[0-9a-fA-F]+|2\\^\\d+(?: - \\d+)?|\\d+)\\)");
    /** A lock byte by number, with the words before it that say which one it is. */
    private static final Pattern LOCK_BYTE = Pattern.compile("\\b(3072|3080|3088|3096)\\b");
    private static final Map<String, String> LOCK_WORDS = new LinkedHashMap<>();
    static
    {
        LOCK_WORDS.put("readers'", "READERS_LOCK_OFFSET");
        LOCK_WORDS.put("creator", "CREATOR_LOCK_OFFSET");
        LOCK_WORDS.put("name lock", "CREATOR_LOCK_OFFSET");
        LOCK_WORDS.put("auth-key", "AUTH_KEY_LOCK_OFFSET");
        LOCK_WORDS.put("AUTH_KEY_LOCK", "AUTH_KEY_LOCK_OFFSET");
    }
    /** Layout 5.0's growth lock byte: no constant any more, a fixed number in the text. */
    private static final long OLD_GROWTH_LOCK = 3096;
    private static final Pattern STATE_NUMBERED = Pattern.compile(
        "\\b(\\d+) (FREE|CLAIMED|VALID|REMOVING|PUBLISHING|CANCELLED)\\b|\\b(FREE|CLAIMED|VALID|REMOVING|PUBLISHING|CANCELLED) \\((\\d+)[:)]");
    private static final Pattern OP_NUMBERED = Pattern.compile("\\b(\\d+) (NONE|PUBLISH|REMOVE|COUNTED)\\b");
    /** "Insert, step 4.7", "Undo steps 5 and 6", "Recovery, steps 3 to 7", "Migration, Copy step 2.2". */
    private static final Pattern STEP_REF = Pattern.compile("(?<![A-Za-z])(Refusals|Create|Remove|Attach|Insert|Undo|" +
        "Recovery|Migration|Grow|Follow|Auth keys|User id),? (?:Copy |Switch |Start )?steps? (\\d+(?:\\.\\d+)?)" +
        "(?:(?: to | and )(\\d+(?:\\.\\d+)?))?");

    private static String doc() throws Exception
    {
        return Files.readString(DOC);
    }

    private static Map<String, Long> constants() throws IllegalAccessException
    {
        final Map<String, Long> values = new HashMap<>();
        for (final Class<?> c : CLASSES)
        {
            for (final Field f : c.getDeclaredFields())
            {
                if (Modifier.isStatic(f.getModifiers()) && (f.getType() == int.class || f.getType() == long.class))
                {
                    f.setAccessible(true);
                    values.putIfAbsent(f.getName(), ((Number)f.get(null)).longValue());
                }
            }
        }
        return values;
    }

    private static long value(final String text)
    {
        if (text.startsWith("0x"))
        {
            return Long.parseLong(text.substring(2), 16);
        }
        if (text.startsWith("2^"))
        {
            final String[] p = text.substring(2).split(" - ");
            return (1L << Integer.parseInt(p[0])) - (p.length > 1 ? Long.parseLong(p[1]) : 0);
        }
        return Long.parseLong(text);
    }

    private static int lineOf(final String doc, final int at)
    {
        return (int)doc.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
    }

    @Test
    void shouldGiveEveryConstantTheCodesValue() throws Exception
    {
        final String doc = doc();
        final Map<String, Long> code = constants();
        final List<String> wrong = new ArrayList<>();
        final Matcher m = NAMED_VALUE.matcher(doc);
        int checked = 0;
        while (m.find())
        {
            final Long actual = code.get(m.group(1));
            if (actual == null)
            {
                continue; // libfabric's and POSIX's names (FI_EIO (damaged)); ShmLayoutChecklistTest checks shmav's exist
            }
            checked++;
            if (actual != value(m.group(2)))
            {
                wrong.add("line " + lineOf(doc, m.start()) + ": " + m.group() + ", but the code has " + actual);
            }
        }
        assertEquals(List.of(), wrong, "constants whose value the page states wrongly");
        assertTrue(checked >= 8, "the page names values of at least 8 constants: " + checked);
    }

    /** A header field by its offset, {@code `lockFileInode` (152)}, is at the offset its constant gives. */
    @Test
    void shouldGiveHeaderFieldsTheirOffsets() throws Exception
    {
        final String doc = doc();
        final Map<String, Long> code = constants();
        final List<String> wrong = new ArrayList<>();
        final Matcher m = Pattern.compile("`([a-z][A-Za-z]*)` \\((\\d+)\\)").matcher(doc);
        int checked = 0;
        while (m.find())
        {
            final String constant = m.group(1).replaceAll("([A-Z])", "_$1").toUpperCase(java.util.Locale.ROOT) + "_OFFSET";
            final Long offset = code.get(constant);
            checked++;
            if (offset == null || offset != Long.parseLong(m.group(2)))
            {
                wrong.add("line " + lineOf(doc, m.start()) + ": " + m.group() + ", but " + constant + " is " + offset);
            }
        }
        assertEquals(List.of(), wrong, "header fields given at the wrong offset");
        assertTrue(checked >= 3, "header fields given by offset: " + checked);
    }

    /**
     * The page's own version (NAME, SYNOPSIS), the version word it says a writer stores and the major a
     * reader checks are the code's. COMPATIBILITY tells history, so its versions are not checked.
     */
    @Test
    void shouldStateTheCodesLayoutVersion() throws Exception
    {
        final String doc = doc();
        final String current = AvFileDescriptor.VERSION_MAJOR + "." + AvFileDescriptor.VERSION_MINOR;
        final String now = doc.substring(0, doc.indexOf("\n## COMPATIBILITY"));
        final List<String> wrong = new ArrayList<>();
        final Matcher own = Pattern.compile("layout version (\\d+\\.\\d+)").matcher(doc.substring(0, doc.indexOf("\n## DESCRIPTION")));
        int seen = 0;
        while (own.find())
        {
            seen++;
            if (!own.group(1).equals(current))
            {
                wrong.add("NAME/SYNOPSIS: " + own.group());
            }
        }
        final Matcher word = Pattern.compile("0x000[0-9a-f]0000").matcher(now);
        while (word.find())
        {
            seen++;
            if (value(word.group()) != AvFileDescriptor.VERSION)
            {
                wrong.add("line " + lineOf(doc, word.start()) + ": " + word.group());
            }
        }
        final Matcher major = Pattern.compile("version >> 16 == (\\d+)").matcher(doc);
        while (major.find())
        {
            seen++;
            if (Integer.parseInt(major.group(1)) != AvFileDescriptor.VERSION_MAJOR)
            {
                wrong.add("line " + lineOf(doc, major.start()) + ": " + major.group());
            }
        }
        assertEquals(List.of(), wrong, "the page's own layout version is " + current + " in the code");
        assertTrue(seen >= 3, "the page states its version: " + seen);
    }

    /** Each lock byte named by number is the one the words before it say: readers', creator's (the name lock), auth-key. */
    @Test
    void shouldNameEachLockByteAtItsOffset() throws Exception
    {
        final String doc = doc();
        final Map<String, Long> code = constants();
        final List<String> wrong = new ArrayList<>();
        final Matcher m = LOCK_BYTE.matcher(doc);
        int checked = 0;
        while (m.find())
        {
            final long n = Long.parseLong(m.group(1));
            final String before = doc.substring(Math.max(doc.lastIndexOf('\n', m.start()) + 1, m.start() - 60), m.start());
            String which = null;
            int at = -1;
            for (final Map.Entry<String, String> e : LOCK_WORDS.entrySet())
            {
                final int i = before.lastIndexOf(e.getKey());
                if (i > at)
                {
                    at = i;
                    which = e.getValue();
                }
            }
            if (which == null)
            {
                continue; // a table row or a diagram line: ShmLayoutDocTest's
            }
            checked++;
            if (n != OLD_GROWTH_LOCK && code.get(which) != n)
            {
                wrong.add("line " + lineOf(doc, m.start()) + ": ..." + before + n + " is " + which + " = " + code.get(which));
            }
        }
        assertEquals(List.of(), wrong, "lock bytes named by the wrong number");
        assertTrue(checked >= 5, "lock bytes named by number: " + checked);
    }

    @Test
    void shouldNumberSlotStatesAndJournalOpsAsTheCode() throws Exception
    {
        final String doc = doc();
        final Map<String, Long> code = constants();
        final List<String> wrong = new ArrayList<>();
        final Matcher s = STATE_NUMBERED.matcher(doc);
        int checked = 0;
        while (s.find())
        {
            final String name = s.group(2) != null ? s.group(2) : s.group(3);
            final long n = Long.parseLong(s.group(1) != null ? s.group(1) : s.group(4));
            checked++;
            if (code.get(name) != n)
            {
                wrong.add("line " + lineOf(doc, s.start()) + ": " + s.group() + ", but " + name + " is " + code.get(name));
            }
        }
        final int ops = doc.indexOf("Journal `op`:");
        final Matcher o = OP_NUMBERED.matcher(doc.substring(ops, doc.indexOf("\n\n", ops)));
        while (o.find())
        {
            checked++;
            if (code.get("OP_" + o.group(2)) != Long.parseLong(o.group(1)))
            {
                wrong.add("journal op " + o.group() + ", but OP_" + o.group(2) + " is " + code.get("OP_" + o.group(2)));
            }
        }
        assertEquals(List.of(), wrong, "states or journal ops numbered unlike the code");
        assertTrue(checked >= 10, "numbered states and ops: " + checked);
    }

    /** The steps of each WRITER'S CHECKLIST section ("4", "4.7"), by the first word of its heading. */
    static Map<String, Set<String>> checklistSteps(final String doc)
    {
        final Map<String, Set<String>> steps = new HashMap<>();
        final String list = doc.substring(doc.indexOf("\n## WRITER'S CHECKLIST"), doc.indexOf("\n## COMPATIBILITY"));
        Set<String> section = null;
        String top = null;
        for (final String line : list.split("\n"))
        {
            if (line.startsWith("### "))
            {
                final String heading = line.substring(4).replaceAll(" \\(.*", "");
                final String key = heading.equals("Undo of a claim") ? "Undo" : heading;
                section = steps.computeIfAbsent(key, k -> new TreeSet<>()); // two Remove sections share one set
                top = null;
                continue;
            }
            final Matcher m = Pattern.compile("^( {0,3})(\\d+)\\. ").matcher(line);
            if (section != null && m.find())
            {
                if (m.group(1).isEmpty())
                {
                    top = m.group(2);
                    section.add(top);
                }
                else if (top != null)
                {
                    section.add(top + "." + m.group(2));
                }
            }
        }
        return steps;
    }

    /**
     * Every reference to a step of a checklist section names a step that section has. CONCURRENCY
     * numbers its own summaries (its Insert has 5 steps), so there only references that say
     * "WRITER'S CHECKLIST" are checked.
     */
    @Test
    void shouldReferOnlyToStepsThatExist() throws Exception
    {
        final String doc = doc();
        final Map<String, Set<String>> steps = checklistSteps(doc);
        assertTrue(steps.get("Insert").contains("4.7") && steps.get("Create").contains("1.5"), steps.toString());
        final int concurrency = doc.indexOf("\n## CONCURRENCY");
        final int checklist = doc.indexOf("\n## WRITER'S CHECKLIST");
        final List<String> wrong = new ArrayList<>();
        final Matcher m = STEP_REF.matcher(doc);
        int checked = 0;
        while (m.find())
        {
            if (m.start() > concurrency && m.start() < checklist &&
                !doc.substring(Math.max(0, m.start() - 22), m.start()).contains("CHECKLIST"))
            {
                continue;
            }
            final Set<String> have = steps.get(m.group(1));
            for (final String step : new String[] {m.group(2), m.group(3)})
            {
                if (step == null)
                {
                    continue;
                }
                checked++;
                if (have == null || !have.contains(step))
                {
                    wrong.add("line " + lineOf(doc, m.start()) + ": " + m.group() + " (" + m.group(1) + " has " + have + ")");
                }
            }
        }
        assertEquals(List.of(), wrong, "references to steps that do not exist");
        assertTrue(checked >= 20, "step references checked: " + checked);
    }
}
