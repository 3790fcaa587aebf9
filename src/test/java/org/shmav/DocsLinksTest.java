package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The README and the docs pages link to each other by task: every relative link must name a file that
 * exists, and every {@code #anchor} into a Markdown page a heading it has (as GitHub makes anchors from
 * headings). A page moved or a heading renamed without its links fails here.
 */
class DocsLinksTest
{
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$", Pattern.MULTILINE);

    @Test
    void shouldLinkOnlyToFilesAndHeadingsThatExist() throws IOException
    {
        final List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.list(Path.of("docs")))
        {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        final List<String> broken = new ArrayList<>();
        for (final Path page : pages)
        {
            final Matcher m = LINK.matcher(withoutCodeBlocks(Files.readString(page)));
            while (m.find())
            {
                final String target = m.group(1);
                if (target.matches("^[a-z]+:.*"))
                {
                    continue; // https:, mailto: ...
                }
                final int hash = target.indexOf('#');
                final String file = hash < 0 ? target : target.substring(0, hash);
                final Path resolved = file.isEmpty() ? page : page.resolveSibling(file).normalize();
                if (!Files.exists(resolved))
                {
                    broken.add(page + ": " + target + " (no file " + resolved + ")");
                    continue;
                }
                if (hash >= 0 && resolved.toString().endsWith(".md") &&
                    !anchors(Files.readString(resolved)).contains(target.substring(hash + 1)))
                {
                    broken.add(page + ": " + target + " (no such heading in " + resolved + ")");
                }
            }
        }
        assertTrue(pages.size() > 5, "README and the docs pages: " + pages);
        assertEquals(List.of(), broken);
    }

    /** GitHub's anchors for the headings of {@code markdown}: lower case, punctuation dropped, spaces as '-'. */
    static Set<String> anchors(final String markdown)
    {
        final Set<String> anchors = new HashSet<>();
        final Matcher m = HEADING.matcher(withoutCodeBlocks(markdown));
        while (m.find())
        {
            anchors.add(m.group(1).strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-'));
        }
        return anchors;
    }

    private static String withoutCodeBlocks(final String markdown)
    {
        return markdown.replaceAll("(?s)```.*?```", "");
    }
}
