package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Year;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;

import org.junit.jupiter.api.Test;

/**
 * The javadoc jar {@code mvn package} builds: every page's footer names the years, with no placeholder
 * left in it (it read "© {inceptionYear}–2026"). Warnings of javac and javadoc fail the build itself
 * (-Werror, failOnWarnings), so a build that gets here had none.
 */
class JavadocJarIT
{
    private static final Pattern FOOTER = Pattern.compile("Copyright &#169; ([^ ]+) the shmav developers");

    @Test
    void shouldPrintTheYearsInTheFooterWithoutPlaceholders() throws IOException
    {
        try (ZipFile jar = new ZipFile(javadocJar().toFile()))
        {
            final String page = new String(jar.getInputStream(jar.getEntry("org/shmav/AddressVector.html")).readAllBytes(),
                StandardCharsets.UTF_8).replace("\u00a9", "&#169;");
            final Matcher m = FOOTER.matcher(page);
            assertTrue(m.find(), "no footer in the page");
            final String years = m.group(1);
            final String now = Integer.toString(Year.now().getValue());
            assertEquals("2026".equals(now) ? "2026" : "2026&#x2013;" + now, years, "inception year 2026, then this one");
            assertTrue(!page.contains("{inceptionYear}") && !page.contains("{currentYear}"), "placeholders left");
        }
    }

    private static Path javadocJar() throws IOException
    {
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(Path.of("target"), "shmav-*-javadoc.jar"))
        {
            for (final Path jar : jars)
            {
                return jar;
            }
        }
        throw new AssertionError("no target/shmav-*-javadoc.jar: run through mvn verify (package builds it)");
    }
}
