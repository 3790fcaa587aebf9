package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

class TextTest
{
    @Test
    void shouldAlignColumnsAndLetAShortRowsLastCellRunOn()
    {
        final StringWriter out = new StringWriter();
        new Text.Table("NAME", "TYPE", "COUNT").row("job7", "table", 4).row("a-long-name", "not an AV: a long reason")
            .print(new PrintWriter(out, true), "");
        assertEquals("NAME         TYPE   COUNT\njob7         table  4\na-long-name  not an AV: a long reason\n",
            out.toString().replace(System.lineSeparator(), "\n"));
    }

    @Test
    void shouldShowAgesAndSizesShort()
    {
        assertEquals("42s", Text.age(0, 42_000));
        assertEquals("5m", Text.age(0, 300_000));
        assertEquals("3h", Text.age(0, 3 * 3_600_000 + 5));
        assertEquals("2d", Text.age(0, 2 * 86_400_000L));
        assertEquals("81920", Text.size(81920));
        assertEquals("2.4M", Text.size(2_564_096));
    }
}
