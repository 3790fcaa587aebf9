package org.shmav;

import java.time.Duration;

/** Durations in messages as people write them ("250 ms", "1.5 s", "2 min 30 s"), not ISO-8601 ("PT1.5S"). */
final class HumanDuration
{
    private HumanDuration()
    {
    }

    /** {@return {@code d} in the largest unit that keeps it readable: ms below 1 s, s (one decimal) below 1 min, then min and h} */
    static String of(final Duration d)
    {
        final long ms = d.toMillis();
        if (ms < 1000)
        {
            return ms + " ms";
        }
        if (ms < 60_000)
        {
            final long tenths = (ms + 50) / 100;
            return tenths % 10 == 0 ? tenths / 10 + " s" : tenths / 10 + "." + tenths % 10 + " s";
        }
        final long s = d.toSeconds();
        if (s < 3600)
        {
            return s % 60 == 0 ? s / 60 + " min" : s / 60 + " min " + s % 60 + " s";
        }
        final long min = s / 60;
        return min % 60 == 0 ? min / 60 + " h" : min / 60 + " h " + min % 60 + " min";
    }
}
