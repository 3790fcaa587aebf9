package org.shmav.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code gc --json}: gc's report as JSON. gc reports each decision on a line of a fixed shape,
 * {@code ACTION NAME: WHY} (ACTION one of removed, repaired, kept, failed, left, would remove, would
 * repair), then one summary line; this runs gc with its output captured and turns those lines into
 * {@code actions}, so that the text and the JSON cannot tell different stories.
 */
final class GcJson
{
    private static final Pattern ACTION =
        Pattern.compile("(removed|repaired|kept|failed|left|would remove|would repair) +(.+?): (.*)"); // names may hold spaces
    private static final Pattern SUMMARY = Pattern.compile("gc(?: \\(dry run\\))?: (.*)");

    private GcJson()
    {
    }

    /** Runs {@code gc} (the text report) into a buffer and prints it as JSON; returns gc's exit code. */
    static int report(final AvCommand command, final boolean dryRun, final Callable<Integer> gc)
    {
        final StringWriter text = new StringWriter();
        final int code;
        command.capture(new PrintWriter(text));
        try
        {
            code = gc.call();
        }
        catch (final RuntimeException e)
        {
            throw e;
        }
        catch (final Exception e)
        {
            throw new IllegalStateException(e);
        }
        finally
        {
            command.capture(null);
        }
        final List<Object> actions = new ArrayList<>();
        String summary = null;
        for (final String line : text.toString().split("\n"))
        {
            final Matcher a = ACTION.matcher(line);
            final Matcher s = SUMMARY.matcher(line);
            if (a.matches())
            {
                final Map<String, Object> m = new LinkedHashMap<>();
                m.put("action", a.group(1).replace("would ", "would-"));
                m.put("name", a.group(2));
                m.put("reason", a.group(3));
                actions.add(m);
            }
            else if (s.matches())
            {
                summary = s.group(1);
            }
        }
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("directory", command.directory().path().toString());
        m.put("dryRun", dryRun);
        m.put("actions", actions);
        m.put("summary", summary);
        command.out().println(Json.write(m));
        return code;
    }
}
