package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.Domain;
import org.shmav.DomainAttr;
import org.shmav.Fi;

/**
 * {@code shmav show} of an AV with auth keys: one address bound to two keys and to none is three entries,
 * which only the AUTH_KEY column (and {@code authKey} in the JSON) tells apart; an AV without auth keys
 * shows no such column.
 */
class ShowAuthKeysTest
{
    @TempDir
    Path dir;

    @Test
    void shouldTellEntriesOfOneAddressBoundToDifferentKeysApart()
    {
        try (Domain domain = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN).shmDirectory(dir)
                .avAuthKey(true).authKeySize(8).build());
             AddressVector av = domain.openAv(AvAttr.builder().name("keyed").count(8).build()))
        {
            final long k0 = av.insertAuthKey(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}), 0);
            final long k1 = av.insertAuthKey(ByteBuffer.wrap(new byte[] {8, 7, 6, 5, 4, 3, 2, 1}), 0);
            final ByteBuffer address = ByteBuffer.allocate(16).put(0, (byte)2).put(2, (byte)0x13).put(3, (byte)0x88)
                .put(4, (byte)10).put(7, (byte)1); // 10.0.0.1:5000
            assertEquals(1, av.insert(address.duplicate(), 1, new long[] {k0}, Fi.AUTH_KEY, null));
            assertEquals(1, av.insert(address.duplicate(), 1, new long[] {k1}, Fi.AUTH_KEY, null));
            assertEquals(1, av.insert(address.duplicate(), 1, null, 0, null));
            assertEquals(3, av.count());

            final String shown = run("show", "keyed");
            assertTrue(shown.contains("AUTH_KEY"), shown);
            final List<String> rows = shown.lines().filter(l -> l.contains("fi_sockaddr_in://10.0.0.1:5000")).toList();
            assertEquals(3, rows.size(), shown);
            final List<String> keys = rows.stream().map(l -> l.trim().split("\\s+")[2]).sorted().toList();
            final long i0 = k0 & 0xFFFF_FFFFL; // the key's index in the AV's key table: the handle's low bits
            final long i1 = k1 & 0xFFFF_FFFFL;
            assertEquals(List.of("-", Long.toString(i0), Long.toString(i1)).stream().sorted().toList(), keys, shown);
            final String json = run("show", "keyed", "--json");
            assertTrue(json.contains("\"authKey\": " + i0) && json.contains("\"authKey\": " + i1) &&
                json.contains("\"authKey\": null"), json);
        }
        assertEquals(0, CliRun.in(dir, "create", "plain", "--count", "4").code());
        assertTrue(!run("show", "plain").contains("AUTH_KEY"), "no auth keys, no column");
    }

    private String run(final String... args)
    {
        final CliRun r = CliRun.in(dir, args);
        assertEquals(0, r.code(), r.err());
        return r.out();
    }
}
