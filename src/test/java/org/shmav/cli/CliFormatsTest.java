package org.shmav.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI on the provider formats and opaque addresses (layout 8.0): create with a format and a length,
 * insert in hex, show with libfabric's straddr text (hex for opaque), remove by the hex address.
 */
class CliFormatsTest
{
    @TempDir
    Path dir;

    private CliRun shmav(final String... args)
    {
        return CliRun.in(dir, args);
    }

    @Test
    void shouldCreateInsertShowAndRemoveCxiAddresses()
    {
        assertEquals(0, shmav("create", "cxi", "--count", "4", "--format", "cxi").code());
        final CliRun inserted = shmav("insert", "cxi", "078a4602", "0x01000000");
        assertEquals(0, inserted.code(), inserted.err());
        final CliRun shown = shmav("show", "cxi");
        assertTrue(shown.out().contains("fi_addr_cxi://0x02468a07") && shown.out().contains("fi_addr_cxi://0x00000001"),
            shown.out());
        assertTrue(shown.out().contains("FI_ADDR_CXI, 4 bytes"), shown.out());
        final CliRun wrong = shmav("insert", "cxi", "0102");
        assertEquals(ExitCode.BAD_INPUT.code, wrong.code(), wrong.out() + wrong.err());
        assertTrue(wrong.err().contains("2 bytes, but the AV's addresses are FI_ADDR_CXI"), wrong.err());
        assertEquals(0, shmav("remove", "cxi", "0x01000000").code());
    }

    @Test
    void shouldKeepOpaqueAddressesOfTheirOwnLengthsAndShowThemInHex()
    {
        final CliRun created = shmav("create", "ucx", "--count", "4", "--format", "opaque", "--max-addr-len", "1024");
        assertEquals(0, created.code(), created.err());
        final String longer = "ab".repeat(600);
        assertEquals(0, shmav("insert", "ucx", "0a0b0c", longer).code());
        final CliRun shown = shmav("show", "ucx");
        assertTrue(shown.out().contains("0a0b0c") && shown.out().contains(longer), shown.out());
        assertTrue(shown.out().contains("FI_FORMAT_UNSPEC, up to 1024 bytes"), shown.out()); // not "1024 bytes": lengths vary
        final CliRun tooLong = shmav("insert", "ucx", "cd".repeat(1025));
        assertEquals(ExitCode.BAD_INPUT.code, tooLong.code(), tooLong.err());
        final CliRun dump = shmav("dump", "ucx", "--limit", "1");
        assertTrue(dump.out().contains("addrLenVarying 1") && dump.out().contains("address 0a0b0c"), dump.out());
        final CliRun both = shmav("create", "bad", "--count", "4", "--format", "opaque", "--addr-len", "8",
            "--max-addr-len", "8");
        assertEquals(ExitCode.USAGE.code, both.code(), both.err());
        assertTrue(both.err().contains("exactly one of"), both.err());
    }
}
