package org.shmav;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import java.util.List;
import java.util.function.Predicate;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

import org.junit.jupiter.api.Test;

/**
 * The layers of docs/architecture.md, held against the compiled main classes: a class uses only the
 * layers below its own (and its own), and no two packages import each other, directly or round a loop.
 * {@link #LAYERS} is the one list of the layers; {@link ArchitectureDocTest} checks the page against it.
 */
class ArchitectureTest
{
    /** Entry points of the API: the classes of {@code org.shmav} that build on the layers below. */
    static final List<String> ENTRY_CLASSES = List.of("org.shmav.Domain", "org.shmav.Rank");

    /** The layers, top first: each may use every layer after it, none before it. */
    static final List<Layer> LAYERS = List.of(
        new Layer("junit", "org.shmav.junit", c -> inPackage(c, "org.shmav.junit")),
        new Layer("launch", "org.shmav.launch", c -> inPackage(c, "org.shmav.launch")),
        new Layer("cli", "org.shmav.cli", c -> inPackage(c, "org.shmav.cli")),
        new Layer("entry", "org.shmav.Domain, org.shmav.Rank", ArchitectureTest::isEntry),
        new Layer("job", "org.shmav.job", c -> inPackage(c, "org.shmav.job")),
        new Layer("store", "org.shmav.store", c -> inPackage(c, "org.shmav.store")),
        new Layer("av", "org.shmav.av", c -> inPackage(c, "org.shmav.av")),
        new Layer("slots", "org.shmav.slots", c -> inPackage(c, "org.shmav.slots")),
        new Layer("shm", "org.shmav.shm", c -> inPackage(c, "org.shmav.shm")),
        new Layer("api", "org.shmav (every other class)", c -> inPackage(c, "org.shmav") && !isEntry(c)));

    /** The main classes, imported once per test JVM (ArchitectureDocTest reads them too). */
    static final JavaClasses MAIN = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
        .importPackages("org.shmav");

    /** One layer: its name in docs/architecture.md, what it holds (as the page writes it), and its classes. */
    record Layer(String name, String holds, Predicate<JavaClass> classes)
    {
    }

    @Test
    void shouldHaveEveryMainClassInALayer()
    {
        for (final JavaClass c : MAIN)
        {
            final long layers = LAYERS.stream().filter(l -> l.classes().test(c)).count();
            if (layers != 1)
            {
                throw new AssertionError(c.getName() + " is in " + layers + " layers; docs/architecture.md places every class in one");
            }
        }
    }

    /** The whole order, with no exception. */
    @Test
    void shouldUseOnlyLayersBelow()
    {
        layers().check(MAIN);
    }

    @Test
    void shouldHaveNoCyclesBetweenPackages()
    {
        slices().matching("org.shmav.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    /** The same with the root package cut in two, its entry classes and the rest (the API's vocabulary). */
    @Test
    void shouldHaveNoCyclesBetweenLayers()
    {
        slices().assignedFrom(new SliceAssignment()
        {
            @Override
            public SliceIdentifier getIdentifierOf(final JavaClass c)
            {
                return LAYERS.stream().filter(l -> l.classes().test(c)).findFirst()
                    .map(l -> SliceIdentifier.of(l.name())).orElse(SliceIdentifier.ignore());
            }

            @Override
            public String getDescription()
            {
                return "the layers of docs/architecture.md";
            }
        }).should().beFreeOfCycles().check(MAIN);
    }

    /** Each layer may be used only by the layers above it. */
    private static LayeredArchitecture layers()
    {
        LayeredArchitecture rule = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (final Layer l : LAYERS)
        {
            rule = rule.layer(l.name()).definedBy(DescribedPredicate.describe(l.holds(), l.classes()));
        }
        for (int i = 1; i < LAYERS.size(); i++)
        {
            final String[] above = LAYERS.subList(0, i).stream().map(Layer::name).toArray(String[]::new);
            rule = rule.whereLayer(LAYERS.get(i).name()).mayOnlyBeAccessedByLayers(above);
        }
        return rule.whereLayer(LAYERS.get(0).name()).mayNotBeAccessedByAnyLayer();
    }

    private static boolean isEntry(final JavaClass c)
    {
        final String name = c.getName();
        return ENTRY_CLASSES.stream().anyMatch(e -> name.equals(e) || name.startsWith(e + "$"));
    }

    private static boolean inPackage(final JavaClass c, final String pkg)
    {
        return c.getPackageName().equals(pkg);
    }
}
