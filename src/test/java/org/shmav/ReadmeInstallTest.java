package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * The README's consumer pom and Gradle file name this build's coordinates and version, and the pom
 * keeps what a stock Maven 3.8 needs on Java 17: a compiler plugin that knows {@code release} (3.6 or
 * later; 3.8's default, 3.1, compiles for Java 5 and fails). The pom was built for real with Maven
 * 3.8.7 and Java 17 against the installed jar when it was written; this keeps it from going stale.
 */
class ReadmeInstallTest
{
    @Test
    void shouldShowAConsumerPomAndGradleFileOfThisVersion() throws Exception
    {
        final String readme = Files.readString(Path.of("README.md"));
        final XPathFactory xpaths = XPathFactory.newInstance();
        final Document project = parse(Files.readString(Path.of("pom.xml")));
        final String version = xpaths.newXPath().evaluate("/project/version", project);

        final Matcher xml = Pattern.compile("```xml\n(<\\?xml.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(xml.find(), "the README shows a whole pom");
        final Document consumer = parse(xml.group(1));
        final var x = xpaths.newXPath();
        assertEquals("org.shmav", x.evaluate("/project/dependencies/dependency/groupId", consumer));
        assertEquals("shmav", x.evaluate("/project/dependencies/dependency/artifactId", consumer));
        assertEquals(version, x.evaluate("/project/dependencies/dependency/version", consumer));
        assertEquals("17", x.evaluate("/project/properties/*[local-name()='maven.compiler.release']", consumer));
        final String compiler = x.evaluate("/project/build/plugins/plugin[artifactId='maven-compiler-plugin']/version",
            consumer);
        final String[] parts = compiler.split("\\.");
        assertTrue(Integer.parseInt(parts[0]) > 3 || Integer.parseInt(parts[0]) == 3 && Integer.parseInt(parts[1]) >= 6,
            "maven-compiler-plugin " + compiler + " must know <release> (3.6 or later)");

        assertTrue(readme.contains("implementation(\"org.shmav:shmav:" + version + "\")"), "the Gradle file's version");
    }

    private static Document parse(final String xml) throws Exception
    {
        final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }
}
