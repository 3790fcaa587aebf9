package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.it.TestDir;

/**
 * The README's quick start and the Java API page's example (docs/java-api.md), exactly as the pages
 * show them: each java block is compiled on its own
 * (with -Xlint:all -Werror, against the test classpath) and its main method is run, and the test checks
 * what it printed. An example that does not compile, or prints something else, fails here.
 */
class ReadmeExampleTest
{
    private Path dir;
    private Path classes;

    @BeforeEach
    void setUp() throws Exception
    {
        dir = TestDir.createInShm("readme");
        classes = Files.createTempDirectory("readme-classes");
        System.setProperty(DomainAttr.SHM_DIR_PROPERTY, dir.toString());
    }

    @AfterEach
    void tearDown()
    {
        System.clearProperty(DomainAttr.SHM_DIR_PROPERTY);
        TestDir.delete(dir);
        TestDir.delete(classes);
    }

    @Test
    void shouldCompileAndRunTheQuickStart() throws Exception
    {
        final List<String> out = run("README.md", "QuickStart");
        assertEquals(List.of("2 inserted at 0, 1", "fi_sockaddr_in://10.0.0.2:5000", "another opener sees it at 1"), out);
        assertFalse(Files.exists(dir.resolve("quickstart")), "the example unlinks its AV");
    }

    @Test
    void shouldCompileAndRunTheJavaConveniencesExample() throws Exception
    {
        final List<String> out = run("docs/java-api.md", "JavaApiExample");
        assertEquals(List.of(
            "10.0.0.1 at 0",
            "InsertResult{inserted=2 of 3, failures=[[1] FI_EADDRNOTAVAIL]}",
            "Optional[/10.0.0.4:5000]",
            "Optional.empty",
            "0 fi_sockaddr_in://10.0.0.1:5000",
            "1 fi_sockaddr_in://10.0.0.2:5000",
            "2 fi_sockaddr_in://10.0.0.4:5000",
            "shmav_av_count: FI_EINVAL (Invalid argument): AV is closed"),
            out.stream().filter(l -> !l.startsWith("reader: ")).toList());
        assertEquals(List.of("reader: OptionalLong[2]"), out.stream().filter(l -> l.startsWith("reader: ")).toList(),
            "the reader that waited for the AV found the address");
        assertFalse(Files.exists(dir.resolve("peers")), "the example unlinks its AV");
    }

    /** Compiles {@code page}'s java block declaring {@code className} and runs its main; returns the lines it printed. */
    private List<String> run(final String page, final String className) throws Exception
    {
        final String source = javaBlock(Files.readString(Path.of(page)), className);
        final Path file = classes.resolve(className + ".java");
        Files.writeString(file, source);
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "tests need a JDK");
        final StringWriter diagnostics = new StringWriter();
        final boolean compiled = javac.getTask(diagnostics, null, d -> diagnostics.append(d.toString()).append('\n'), List.of("-Xlint:all", "-Werror",
            "-classpath", System.getProperty("java.class.path"), "-d", classes.toString()), null,
            javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(file)).call();
        assertTrue(compiled, page + "'s " + className + " does not compile as written:\n" + diagnostics);

        final PrintStream stdout = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader()))
        {
            final Method main = loader.loadClass(className).getMethod("main", String[].class);
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object)new String[0]);
        }
        finally
        {
            System.setOut(stdout);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }

    /** The fenced java block of {@code markdown} that declares {@code public class className}. */
    static String javaBlock(final String markdown, final String className)
    {
        final Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        while (m.find())
        {
            if (m.group(1).contains("public class " + className + "\n"))
            {
                return m.group(1);
            }
        }
        throw new AssertionError("the page has no java block declaring public class " + className);
    }
}
