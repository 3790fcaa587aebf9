package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.JavaClass;

import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md against the code: its layer table is {@link ArchitectureTest#LAYERS} in order, every
 * step of its ways names a class of the layer it says and a method that class has, every class it names in
 * code style exists, every package has a package-info.java, and the comments of the code cite no file
 * outside the repository.
 */
class ArchitectureDocTest
{
    private static final Path PAGE = Path.of("docs/architecture.md");
    /** A row of the layer table: | name | holds | what for |. */
    private static final Pattern LAYER_ROW = Pattern.compile("(?m)^\\| (\\w+) \\| ([^|]+) \\| [^|]+\\|$");
    /** A step of a way: N. **layer** `Class.method`. */
    private static final Pattern STEP = Pattern.compile("(?m)^\\d+\\. \\*\\*(\\w+)\\*\\* `(\\w+)\\.(\\w+)`");
    /** A name in code style that reads as a class: capitalised, camel case, no dots, calls or generics. */
    private static final Pattern CLASS_NAME = Pattern.compile("`([A-Z][a-z]+(?:[A-Z][a-z0-9]*)*)`");

    @Test
    void shouldListTheLayersOfTheRulesInTheirOrder() throws IOException
    {
        final Matcher row = LAYER_ROW.matcher(Files.readString(PAGE));
        final List<String> page = new ArrayList<>();
        while (row.find())
        {
            if (!row.group(1).equals("layer")) // the header
            {
                page.add(row.group(1) + ": " + row.group(2).trim());
            }
        }
        final List<String> rules = ArchitectureTest.LAYERS.stream().map(l -> l.name() + ": " + l.holds()).toList();
        assertEquals(rules, page, "the layer table of " + PAGE + " and ArchitectureTest.LAYERS");
    }

    @Test
    void shouldNameInEachStepAClassOfItsLayerAndAMethodOfIt() throws IOException
    {
        final Matcher step = STEP.matcher(Files.readString(PAGE));
        int steps = 0;
        while (step.find())
        {
            steps++;
            final String layer = step.group(1);
            final JavaClass c = mainClass(step.group(2)).orElseThrow(() -> new AssertionError(PAGE + " names class " +
                step.group(2) + ", which the code does not have"));
            final ArchitectureTest.Layer of = ArchitectureTest.LAYERS.stream().filter(l -> l.classes().test(c)).findFirst()
                .orElseThrow();
            assertEquals(layer, of.name(), () -> PAGE + ": " + step.group(0) + " is in layer " + of.name());
            assertTrue(c.getAllMethods().stream().anyMatch(m -> m.getName().equals(step.group(3))),
                () -> PAGE + ": " + c.getSimpleName() + " has no method " + step.group(3));
        }
        assertTrue(steps >= 10, "the page shows the way of an insert and of a rank's address: " + steps + " steps");
    }

    @Test
    void shouldNameOnlyClassesThatExist() throws IOException
    {
        final Matcher name = CLASS_NAME.matcher(Files.readString(PAGE));
        final List<String> missing = new ArrayList<>();
        while (name.find())
        {
            if (mainClass(name.group(1)).isEmpty() && !name.group(1).equals("ArchitectureTest") &&
                !name.group(1).equals("ArchitectureDocTest"))
            {
                missing.add(name.group(1));
            }
        }
        assertEquals(List.of(), missing, PAGE + " names classes the code does not have");
    }

    @Test
    void shouldDescribeEveryPackage() throws IOException
    {
        final List<String> without = new ArrayList<>();
        try (var dirs = Files.walk(Path.of("src/main/java/org/shmav")))
        {
            for (final Path dir : dirs.filter(Files::isDirectory).toList())
            {
                if (!Files.exists(dir.resolve("package-info.java")))
                {
                    without.add(dir.toString());
                }
            }
        }
        assertEquals(List.of(), without, "packages without a package-info.java");
    }

    @Test
    void shouldCiteNoFileOutsideTheRepository() throws IOException
    {
        final List<String> cites = new ArrayList<>();
        for (final String root : List.of("src/main/java", "src/test/java", "integration-tests/src/test/java", "src/jmh/java",
            "src/jcstress/java", "src/main/c"))
        {
            try (var files = Files.walk(Path.of(root)))
            {
                for (final Path f : files.filter(Files::isRegularFile).toList())
                {
                    final String text = Files.readString(f);
                    for (final String outside : List.of("API.md", "libfabric-facts"))
                    {
                        if (text.contains(outside) && !f.endsWith("ArchitectureDocTest.java"))
                        {
                            cites.add(f + ": " + outside);
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), cites, "comments cite files that are not in the repository");
    }

    private static Optional<JavaClass> mainClass(final String simpleName)
    {
        return ArchitectureTest.MAIN.stream().filter(c -> c.getSimpleName().equals(simpleName) && !c.isNestedClass()).findFirst();
    }
}
