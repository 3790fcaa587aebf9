package org.shmav.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmav.cli.ShmavCli;

/**
 * {@code --json} of every command that reports, parsed by a JSON parser that is not the CLI's writer,
 * against the schemas in docs/cli.md (JSON output).
 */
class CliJsonIT
{
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private TestDir dir;

    @BeforeEach
    void createDirectory() throws IOException
    {
        dir = TestDir.inShm("cli-json-it-");
    }

    @AfterEach
    void removeDirectory() throws IOException
    {
        dir.close();
    }

    @Test
    void shouldPrintEachCommandsDocumentedJson() throws Exception
    {
        final JsonNode created = json("create", "job", "--count", "4", "--json");
        assertEquals("job", created.get("av").asText());
        assertEquals(dir.path().resolve("job").toString(), created.get("file").asText());
        assertEquals("table", created.get("type").asText());
        assertEquals("in", created.get("format").asText());
        assertEquals(4, created.get("capacity").asLong());
        assertTrue(created.get("maxCapacity").asLong() >= 4 && created.get("sizeBytes").asLong() > 0, created.toString());

        final JsonNode inserted = json("insert", "job", "127.0.0.1:1", "127.0.0.1:1", "0.0.0.0:2", "--json");
        final JsonNode addrs = inserted.get("addresses");
        assertEquals(3, addrs.size());
        assertEquals("inserted", addrs.get(0).get("result").asText());
        assertEquals(0, addrs.get(0).get("fiAddr").asLong());
        assertEquals("present", addrs.get(1).get("result").asText());
        assertEquals(2, addrs.get(1).get("refs").asLong(), "refs after the run");
        assertEquals("failed", addrs.get(2).get("result").asText());
        assertEquals("FI_EADDRNOTAVAIL", addrs.get(2).get("error").asText());
        assertEquals(99, addrs.get(2).get("errno").asInt());
        assertTrue(addrs.get(2).get("fiAddr").isNull() && addrs.get(0).get("line").isNull(), inserted.toString());
        assertEquals(List.of(1L, 1L, 1L, 1L), List.of(inserted.get("inserted").asLong(), inserted.get("present").asLong(),
            inserted.get("failed").asLong(), inserted.get("count").asLong()));
        assertFalse(inserted.get("full").asBoolean());

        final JsonNode ls = json("ls", "--json");
        assertEquals("job", ls.get("avs").get(0).get("name").asText());
        assertEquals(1, ls.get("avs").get(0).get("count").asLong());
        final JsonNode show = json("show", "job", "--json");
        assertEquals("fi_sockaddr_in://127.0.0.1:1", show.get("entries").get(0).get("address").asText());
        assertEquals(2, show.get("entries").get(0).get("refs").asLong());

        final JsonNode dump = json("dump", "job", "--json", "--limit", "1");
        final JsonNode magic = dump.get("sections").get(0).get("fields").get(0);
        assertEquals("header", dump.get("sections").get(0).get("title").asText());
        assertEquals(0, magic.get("offset").asLong());
        assertEquals("73686d61762d6176", magic.get("hex").asText(), "\"shmav-av\" in hex");
        assertEquals(0, dump.get("moreSlots").asInt());
        assertTrue(dump.toString().contains("address fi_sockaddr_in://127.0.0.1:1"), dump.toString());

        final JsonNode removed = json("remove", "job", "127.0.0.1:1", "--json");
        assertEquals(List.of(0L, 2L, 1L), List.of(removed.get("fiAddr").asLong(), removed.get("refsBefore").asLong(),
            removed.get("refs").asLong()));
        assertFalse(removed.get("entryRemoved").asBoolean());

        final JsonNode gc = json("gc", "--dry-run", "--grace", "0", "--json");
        assertTrue(gc.get("dryRun").asBoolean());
        assertEquals("would-remove", gc.get("actions").get(0).get("action").asText(), gc.toString());
        assertEquals("job", gc.get("actions").get(0).get("name").asText());
        assertTrue(gc.get("summary").asText().startsWith("1 AV to remove"), gc.toString());

        final JsonNode rm = json("rm", "job", "--json");
        assertTrue(rm.get("removed").asBoolean());
        assertEquals(1, rm.get("count").asLong());
    }

    @Test
    void shouldWatchAsOneJsonObjectPerLine() throws Exception
    {
        json("create", "watched", "--count", "4", "--json");
        final StringWriter out = new StringWriter();
        final CompletableFuture<Integer> watch = CompletableFuture.supplyAsync(() -> ShmavCli.execute(new PrintWriter(out),
            new PrintWriter(new StringWriter()), "--dir", dir.path().toString(), "watch", "watched", "--json",
            "--duration", "30", "--interval", "20"));
        awaitLines(out, 1);
        json("insert", "watched", "127.0.0.1:7", "--json");
        awaitLines(out, 2);
        json("rm", "watched", "--json");
        awaitLines(out, 3);
        assertEquals(0, watch.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        final List<JsonNode> events = new ArrayList<>();
        for (final String line : out.toString().lines().toList())
        {
            events.add(JSON.readTree(line));
        }
        assertEquals(List.of("watching", "insert", "removedAv"), events.stream().map(e -> e.get("event").asText()).toList());
        assertEquals(0, events.get(0).get("entries").asInt());
        assertEquals(0, events.get(1).get("fiAddr").asLong());
        assertEquals("fi_sockaddr_in://127.0.0.1:7", events.get(1).get("address").asText());
        assertTrue(events.stream().allMatch(e -> e.get("av").asText().equals("watched") && e.hasNonNull("time")));
    }

    /** Runs a command in this JVM; its stdout parsed as one JSON document (exit code 0 or 9 expected). */
    private JsonNode json(final String... args) throws IOException
    {
        final List<String> all = new ArrayList<>(List.of("--dir", dir.path().toString()));
        all.addAll(List.of(args));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = ShmavCli.execute(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
        assertTrue(code == 0 || code == 9, String.join(" ", args) + ": " + code + " " + err);
        return JSON.readTree(out.toString());
    }

    private static void awaitLines(final StringWriter out, final int lines) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (out.toString().lines().count() < lines)
        {
            assertTrue(System.nanoTime() < deadline, () -> "fewer than " + lines + " lines within " + WAIT + ": " + out);
            Thread.sleep(10);
        }
    }
}
