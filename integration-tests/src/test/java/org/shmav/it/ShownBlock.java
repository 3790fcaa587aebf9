package org.shmav.it;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@code console} block of a Markdown page: the commands it shows ({@code $ ...} lines) and, after
 * each, the output it shows. Only blocks fenced as {@code ```console} are read; other blocks (code,
 * output that needs a second shell or another host) are left alone, and the pages say which is which.
 *
 * @param page  the page, for messages
 * @param line  the block's first line in the page (1-based)
 * @param steps each command with the output shown after it
 */
record ShownBlock(String page, int line, List<Step> steps)
{
    /** A command as shown (without the {@code $ }), and the lines shown after it. */
    record Step(String command, List<String> output)
    {
    }

    /** Every {@code console} block of {@code markdown}. */
    static List<ShownBlock> parse(final String page, final String markdown)
    {
        final List<ShownBlock> blocks = new ArrayList<>();
        final String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++)
        {
            if (!lines[i].equals("```console"))
            {
                continue;
            }
            final int start = i + 1;
            final List<Step> steps = new ArrayList<>();
            List<String> output = null;
            for (i++; i < lines.length && !lines[i].equals("```"); i++)
            {
                if (lines[i].startsWith("$ "))
                {
                    output = new ArrayList<>();
                    steps.add(new Step(lines[i].substring(2), output));
                }
                else if (output == null)
                {
                    throw new AssertionError(page + ":" + (i + 1) + ": a console block starts with a command ($ ...)");
                }
                else
                {
                    output.add(lines[i]);
                }
            }
            blocks.add(new ShownBlock(page, start, steps));
        }
        return blocks;
    }

    @Override
    public String toString()
    {
        return page + ":" + line + " (" + steps.get(0).command() + ")";
    }
}
