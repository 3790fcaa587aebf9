package org.shmav.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * shm-layout.md's WRITER'S CHECKLIST must name only what exists: every UPPER_CASE constant it mentions
 * is a static field of a descriptor class, and every field name it writes in backticks is a field of
 * the page's tables (or a LAYOUT subsection, such as {@code map_addr}).
 */
class ShmLayoutChecklistTest
{
    private static final Path DOC = Path.of("shm-layout.md");
    private static final String SECTION = "## WRITER'S CHECKLIST";
    private static final List<Class<?>> DESCRIPTORS =
        List.of(AvFileDescriptor.class, SlotDescriptor.class, AttacherDescriptor.class, IndexWord.class);
    /** libfabric's and POSIX's names, which the checklist uses but shmav does not define. */
    private static final List<String> FOREIGN_PREFIXES = List.of("FI_", "F_", "O_", "AF_", "MAP_SHARED", "MADV_");
    private static final Pattern CONSTANT = Pattern.compile("(?<![A-Za-z0-9_.])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])");
    private static final Pattern BACKTICKS = Pattern.compile("`([^`]+)`");
    /** A whole backtick span that is one name: `changes`, `map_addr`. */
    private static final Pattern NAME = Pattern.compile("[a-z][A-Za-z0-9_]*");
    /** A camelCase name anywhere inside a backtick span: `changes + hashUsedBase`. */
    private static final Pattern CAMEL = Pattern.compile("(?<![A-Za-z0-9_.])[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*(?![A-Za-z0-9_(])");

    private static List<String> lines() throws Exception
    {
        return Files.readAllLines(DOC);
    }

    /** The checklist: from its heading to the next top-level section. */
    static String checklist(final List<String> lines)
    {
        final StringBuilder b = new StringBuilder();
        boolean in = false;
        for (final String line : lines)
        {
            if (line.startsWith("## "))
            {
                in = line.equals(SECTION);
            }
            if (in)
            {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }

    /** Field names of every {@code <!-- fields: ... -->} table, and the names of LAYOUT's subsections. */
    static Set<String> documentedNames(final List<String> lines)
    {
        final Set<String> names = new TreeSet<>();
        boolean table = false;
        boolean layout = false;
        for (final String line : lines)
        {
            if (line.startsWith("## "))
            {
                layout = line.equals("## LAYOUT");
            }
            if (layout && line.startsWith("### ") && NAME.matcher(line.substring(4).trim()).matches())
            {
                names.add(line.substring(4).trim());
            }
            if (line.startsWith("<!-- fields: "))
            {
                table = true;
            }
            else if (table && line.startsWith("| ") && !line.startsWith("| offset"))
            {
                names.add(line.split("\\|")[4].trim());
            }
            else if (table && !line.startsWith("|"))
            {
                table = false;
            }
        }
        return names;
    }

    private static boolean isDescriptorConstant(final String name)
    {
        for (final Class<?> c : DESCRIPTORS)
        {
            try
            {
                final Field f = c.getDeclaredField(name);
                if (Modifier.isStatic(f.getModifiers()))
                {
                    return true;
                }
            }
            catch (final NoSuchFieldException e)
            {
                // try the next class
            }
        }
        return false;
    }

    @Test
    void shouldHaveAChecklistForEveryOperation() throws Exception
    {
        final String text = checklist(lines());
        for (final String heading : List.of("### Limits", "### Refusals", "### Create", "### Attach", "### Phase",
            "### Insert", "### Undo", "### Remove", "### User id", "### Auth keys", "### Recovery",
            "### Migration", "### Grow", "### Follow", "### Address equality"))
        {
            assertTrue(text.contains("\n" + heading), "WRITER'S CHECKLIST has no " + heading);
        }
    }

    @Test
    void shouldNameOnlyConstantsOfTheDescriptors() throws Exception
    {
        final String text = checklist(lines());
        final Set<String> seen = new TreeSet<>();
        final List<String> unknown = new ArrayList<>();
        final Matcher m = CONSTANT.matcher(text);
        while (m.find())
        {
            final String name = m.group();
            if (FOREIGN_PREFIXES.stream().anyMatch(name::startsWith))
            {
                continue;
            }
            seen.add(name);
            if (!isDescriptorConstant(name))
            {
                unknown.add(name);
            }
        }
        assertEquals(List.of(), unknown, "constants in WRITER'S CHECKLIST that no descriptor class defines");
        assertTrue(seen.size() >= 10, "too few constants found, is the pattern right? " + seen);
        assertTrue(seen.containsAll(List.of("OP_PUBLISH", "OP_REMOVE", "OP_COUNTED", "OP_NONE", "LOCK_OFFSET",
            "MAX_REFS", "MAX_CAPACITY")), "constants found: " + seen);
    }

    @Test
    void shouldUseOnlyDocumentedFieldNamesInBackticks() throws Exception
    {
        final List<String> lines = lines();
        final Set<String> fields = documentedNames(lines);
        assertTrue(fields.containsAll(List.of("published", "removed", "freeHint", "journal", "phase", "state", "map_addr")),
            "documented names: " + fields);
        final Set<String> seen = new TreeSet<>();
        final List<String> unknown = new ArrayList<>();
        final Matcher spans = BACKTICKS.matcher(checklist(lines));
        while (spans.find())
        {
            final String span = spans.group(1);
            final Set<String> names = new java.util.LinkedHashSet<>();
            if (NAME.matcher(span).matches())
            {
                names.add(span);
            }
            final Matcher camel = CAMEL.matcher(span);
            while (camel.find())
            {
                names.add(camel.group());
            }
            for (final String name : names)
            {
                if (isForeign(name))
                {
                    continue;
                }
                seen.add(name);
                if (!fields.contains(name))
                {
                    unknown.add(name + " (in `" + span + "`)");
                }
            }
        }
        assertEquals(List.of(), unknown, "names in backticks in WRITER'S CHECKLIST that are not fields of the tables");
        assertTrue(seen.size() >= 15, "too few field names found: " + seen);
    }

    /** Names the checklist quotes that are not fields: socket address and stat members, libfabric, shmav and POSIX calls. */
    private static boolean isForeign(final String name)
    {
        return name.startsWith("sin_") || name.startsWith("sin6_") || name.startsWith("fi_") || name.startsWith("st_") ||
            Set.of("insertAt", "stat", "fstat", "fchmod", "fchown").contains(name);
    }
}
