package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class HumanDurationTest
{
    @Test
    void shouldWriteDurationsAsPeopleDo()
    {
        assertEquals("0 ms", HumanDuration.of(Duration.ZERO));
        assertEquals("250 ms", HumanDuration.of(Duration.ofMillis(250)));
        assertEquals("1 s", HumanDuration.of(Duration.ofSeconds(1)));
        assertEquals("1.5 s", HumanDuration.of(Duration.ofMillis(1500)));
        assertEquals("5 s", HumanDuration.of(Duration.ofSeconds(5)));
        assertEquals("59.9 s", HumanDuration.of(Duration.ofMillis(59_900)));
        assertEquals("2 min", HumanDuration.of(Duration.ofMinutes(2)));
        assertEquals("2 min 30 s", HumanDuration.of(Duration.ofSeconds(150)));
        assertEquals("1 h", HumanDuration.of(Duration.ofHours(1)));
        assertEquals("1 h 5 min", HumanDuration.of(Duration.ofMinutes(65)));
    }
}
