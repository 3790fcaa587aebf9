package org.shmav.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.shmav.AddrFormat;
import org.shmav.AddressVector;
import org.shmav.AvAttr;
import org.shmav.AvType;
import org.shmav.Domain;
import org.shmav.DomainAttr;

/**
 * The cost of an address's size: {@code fi_av_lookup} of the next entry of a full AV (fi_addr order,
 * wrapping) and one insert call per address into an empty AV, for FI_SOCKADDR_IN (16 bytes, 64-byte
 * slots), FI_ADDR_EFA (32 bytes, 64-byte slots) and opaque FI_FORMAT_UNSPEC addresses of 256 bytes
 * (320-byte slots), private and shared, {@value #ENTRIES} entries each.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class FormatsBench
{
    /** Entries of every AV. */
    public static final int ENTRIES = 1_000_000;

    @Param({"in", "efa", "opaque256"})
    public String format;

    @Param({BenchAvs.PRIVATE, BenchAvs.SHARED})
    public String av;

    private Domain domain;
    private int addrLen;
    private ByteBuffer addrs;
    private String fullName;
    private AddressVector full;
    private ByteBuffer out;
    private int next;

    @Setup(Level.Trial)
    public void fill()
    {
        final DomainAttr.Builder b = DomainAttr.builder().shmDirectory(BenchAvs.shmDirectory());
        switch (format)
        {
            case "in": b.addrFormat(AddrFormat.SOCKADDR_IN); break;
            case "efa": b.addrFormat(AddrFormat.ADDR_EFA); break;
            case "opaque256": b.addrFormat(AddrFormat.FORMAT_UNSPEC).addrLen(256); break;
            default: throw new IllegalArgumentException(format);
        }
        domain = Domain.open(b.build());
        addrLen = domain.attr().addrLen();
        addrs = format.equals("in") ? BenchAddresses.direct(0, ENTRIES) : opaque(addrLen);
        out = ByteBuffer.allocateDirect(addrLen);
        fullName = BenchAvs.uniqueName("formats-" + format);
        full = open(fullName);
        if (full.insert(addrs, ENTRIES, null, 0, null) != ENTRIES)
        {
            throw new IllegalStateException("could not fill the AV");
        }
    }

    /** Distinct addresses of {@code len} bytes: the index + 1 in the first 4, a pattern after. */
    private static ByteBuffer opaque(final int len)
    {
        final ByteBuffer b = ByteBuffer.allocateDirect(ENTRIES * len);
        for (int i = 0; i < ENTRIES; i++)
        {
            final int at = i * len;
            b.putInt(at, i + 1);
            for (int k = 4; k < len; k += 4)
            {
                b.putInt(at + k, i * 31 + k);
            }
        }
        return b;
    }

    private AddressVector open(final String name)
    {
        final AvAttr.Builder attr = AvAttr.builder().type(AvType.TABLE).count(ENTRIES);
        return domain.openAv((BenchAvs.SHARED.equals(av) ? attr.name(name) : attr).build());
    }

    @TearDown(Level.Trial)
    public void close()
    {
        BenchAvs.closeAndUnlink(domain, full, av, fullName);
        domain.close();
    }

    /** A new empty AV for each insert invocation (its creation is not timed), removed after it. */
    @State(Scope.Thread)
    public static class Empty
    {
        private FormatsBench bench;
        private String name;
        private AddressVector vector;

        @Setup(Level.Invocation)
        public void open(final FormatsBench b)
        {
            bench = b;
            name = BenchAvs.uniqueName("formats-empty-" + b.format);
            vector = b.open(name);
        }

        @TearDown(Level.Invocation)
        public void close()
        {
            BenchAvs.closeAndUnlink(bench.domain, vector, bench.av, name);
        }
    }

    /** fi_addr to address: copies the next entry into a direct buffer. */
    @Benchmark
    public int lookup()
    {
        final int i = next;
        next = i + 1 == ENTRIES ? 0 : i + 1;
        return full.lookup(i, out);
    }

    /** One insert call per address, {@value #ENTRIES} into an empty AV of that count. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public int insertOneByOne(final Empty e)
    {
        final AddressVector empty = e.vector;
        final ByteBuffer a = addrs;
        int n = 0;
        for (int i = 0; i < ENTRIES; i++)
        {
            a.limit((i + 1) * addrLen).position(i * addrLen);
            n += empty.insert(a, 1, null, 0, null);
        }
        a.clear();
        return n;
    }
}
