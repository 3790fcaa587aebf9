package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class JsonTest
{
    @Test
    void shouldWriteNestedValuesInOrderAndEscapeStrings()
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "a\"b\\c\n\u0001");
        m.put("count", 3L);
        m.put("valid", true);
        m.put("userId", null);
        m.put("list", List.of(1, "x"));
        m.put("empty", List.of());
        assertEquals("{\n  \"name\": \"a\\\"b\\\\c\\n\\u0001\",\n  \"count\": 3,\n  \"valid\": true,\n  \"userId\": null,\n" +
            "  \"list\": [\n    1,\n    \"x\"\n  ],\n  \"empty\": []\n}", Json.write(m));
    }
}
