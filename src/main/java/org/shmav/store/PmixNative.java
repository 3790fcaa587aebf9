package org.shmav.store;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

import org.shmav.FabricException;
import org.shmav.FiErrno;

/**
 * The few calls of the PMIx client library ({@code libpmix.so.2}) that {@link PmixStore} needs, bound
 * through JNA's {@link Function} (no interface proxy, no compile step), and the C structs they take,
 * laid out by hand in {@link Memory}.
 *
 * <p>The offsets below are those of PMIx 4.2.2's {@code pmix_common.h} on x86-64 and aarch64 (LP64),
 * checked with a small C program ({@code sizeof}/{@code offsetof}) against Debian's libpmix-dev:
 * <pre>
 *   pmix_proc_t   260 bytes: nspace char[256] at 0, rank uint32 at 256
 *   pmix_value_t   32 bytes: type uint16 at 0, data union at 8 (char* string, uint32, bool, int ...)
 *   pmix_info_t   552 bytes: key char[512] at 0, flags uint32 at 512, value pmix_value_t at 520
 * </pre>
 * They are part of the PMIx standard's ABI, the same in PMIx 3, 4 and 5 (all ship {@code libpmix.so.2}).
 *
 * <p>Only {@link PmixStore} loads this class, and only after it found JNA on the classpath: a JVM without
 * JNA never links it. Not thread-safe: {@link PmixStore} calls it from one thread at a time.
 */
final class PmixNative
{
    /** The library's file name; {@code -Dshmav.pmix.library=/path/libpmix.so} picks another build. */
    static final String LIBRARY = System.getProperty("shmav.pmix.library", "libpmix.so.2");

    static final int PROC_SIZE = 260;
    static final int PROC_NSPACE = 0;
    static final int PROC_RANK = 256;
    static final int NSPACE_MAX = 255;

    static final int VALUE_SIZE = 32;
    static final int VALUE_TYPE = 0;
    static final int VALUE_DATA = 8;

    static final int INFO_SIZE = 552;
    static final int INFO_KEY = 0;
    static final int INFO_FLAGS = 512;
    static final int INFO_VALUE = 520;
    static final int KEY_MAX = 511;

    /** {@code pmix_data_type_t} codes. */
    static final short TYPE_BOOL = 1;
    static final short TYPE_STRING = 3;
    static final short TYPE_INT = 6;
    static final short TYPE_UINT32 = 14;

    /** {@code PMIX_GLOBAL}: a put seen by ranks on every node. */
    static final byte SCOPE_GLOBAL = 3;
    /** {@code PMIX_RANK_WILDCARD}: the job itself, for job-level keys such as {@code pmix.job.size}. */
    static final int RANK_WILDCARD = 0xFFFF_FFFE;

    /** {@code pmix_status_t} codes that map to their own errno. */
    static final int SUCCESS = 0;
    static final int ERR_TIMEOUT = -24;
    static final int ERR_NOT_FOUND = -46;

    private final Function init;
    private final Function finalizeFn;
    private final Function put;
    private final Function commit;
    private final Function fence;
    private final Function get;
    private final Function valueDestruct;
    private final Function errorString;

    /** PMIx_Get's arguments, made once: a get is the call a job makes once per rank. */
    private final Memory getWho = newProc();
    private final Memory getInfo = new Memory(2L * INFO_SIZE);
    private final Memory getOut = new Memory(Native.POINTER_SIZE);

    private PmixNative(final NativeLibrary lib)
    {
        getInfo.clear();
        setInfoKey(getInfo, 0, "pmix.timeout");
        getInfo.setShort(INFO_VALUE + VALUE_TYPE, TYPE_INT);
        // PMIX_OPTIONAL: after a fence that collected the data, a key not on this node is missing, not late
        setInfoKey(getInfo, INFO_SIZE, "pmix.optional");
        getInfo.setShort(INFO_SIZE + INFO_VALUE + VALUE_TYPE, TYPE_BOOL);
        getInfo.setByte(INFO_SIZE + INFO_VALUE + VALUE_DATA, (byte)1);
        init = lib.getFunction("PMIx_Init");
        finalizeFn = lib.getFunction("PMIx_Finalize");
        put = lib.getFunction("PMIx_Put");
        commit = lib.getFunction("PMIx_Commit");
        fence = lib.getFunction("PMIx_Fence");
        get = lib.getFunction("PMIx_Get");
        valueDestruct = lib.getFunction("PMIx_Value_destruct");
        errorString = lib.getFunction("PMIx_Error_string");
    }

    /**
     * Loads the library, or says which package to install.
     *
     * @throws FabricException FI_ENOSYS when JNA's native part or {@code libpmix.so.2} cannot be loaded
     */
    static PmixNative load(final String launcher)
    {
        try
        {
            // JNA's own native part first, so that its failure is not taken for a missing libpmix
            Class.forName("com.sun.jna.Native", true, PmixNative.class.getClassLoader());
        }
        catch (final ClassNotFoundException | LinkageError e)
        {
            throw new FabricException("PMIx_Init", FiErrno.ENOSYS, "launcher=" + launcher + ": JNA could not load its " +
                "native part (" + e + "); if the temporary directory is mounted noexec, set -Djna.tmpdir to one that " +
                "allows executables", e);
        }
        try
        {
            // RTLD_GLOBAL: libpmix dlopens its own plugins, which resolve symbols against it
            final int rtldNowGlobal = 0x2 | 0x100;
            return new PmixNative(NativeLibrary.getInstance(LIBRARY, Map.of(Library.OPTION_OPEN_FLAGS, rtldNowGlobal)));
        }
        catch (final UnsatisfiedLinkError e)
        {
            throw new FabricException("PMIx_Init", FiErrno.ENOSYS, "launcher=" + launcher + " needs the PMIx client " +
                "library " + LIBRARY + ", which did not load (" + e.getMessage() + "): install it (Debian/Ubuntu: " +
                "apt-get install libpmix2; RHEL: dnf install pmix) or name it with -Dshmav.pmix.library=PATH", e);
        }
    }

    /** {@code PMIx_Init(proc, NULL, 0)}: fills {@code proc} with this process's namespace and rank. */
    int init(final Memory proc)
    {
        return init.invokeInt(new Object[] {proc, Pointer.NULL, 0L});
    }

    /** {@code PMIx_Finalize(NULL, 0)}. */
    int finalizeClient()
    {
        return finalizeFn.invokeInt(new Object[] {Pointer.NULL, 0L});
    }

    /** {@code PMIx_Put(PMIX_GLOBAL, key, &{PMIX_STRING, value})}; the library copies the value. */
    int putString(final String key, final String value)
    {
        final Memory text = cString(value);
        final Memory v = new Memory(VALUE_SIZE);
        v.clear();
        v.setShort(VALUE_TYPE, TYPE_STRING);
        v.setPointer(VALUE_DATA, text);
        return put.invokeInt(new Object[] {SCOPE_GLOBAL, key, v});
    }

    /** {@code PMIx_Commit()}. */
    int commit()
    {
        return commit.invokeInt(new Object[0]);
    }

    /**
     * {@code PMIx_Fence(NULL, 0, {PMIX_COLLECT_DATA=true, PMIX_TIMEOUT=seconds}, 2)}: every rank of this
     * namespace, with each rank's puts brought to every node.
     */
    int fence(final int timeoutSeconds)
    {
        final Memory info = new Memory(2L * INFO_SIZE);
        info.clear();
        setInfoKey(info, 0, "pmix.collect");
        info.setShort(INFO_VALUE + VALUE_TYPE, TYPE_BOOL);
        info.setByte(INFO_VALUE + VALUE_DATA, (byte)1);
        setInfoKey(info, INFO_SIZE, "pmix.timeout");
        info.setShort(INFO_SIZE + INFO_VALUE + VALUE_TYPE, TYPE_INT);
        info.setInt(INFO_SIZE + INFO_VALUE + VALUE_DATA, timeoutSeconds);
        return fence.invokeInt(new Object[] {Pointer.NULL, 0L, info, 2L});
    }

    /**
     * {@code PMIx_Get(&{nspace, rank}, key, {PMIX_TIMEOUT=seconds[, PMIX_OPTIONAL=true]}, n, &value)}: the
     * value as text (a
     * string as is, a number in decimal), its memory given back with {@code PMIX_VALUE_RELEASE}; or the
     * failing status as {@link Status#status}.
     */
    Status get(final Memory proc, final int rank, final String key, final int timeoutSeconds, final boolean local)
    {
        getWho.write(0, proc.getByteArray(0, NSPACE_MAX + 1), 0, NSPACE_MAX + 1);
        getWho.setInt(PROC_RANK, rank);
        getInfo.setInt(INFO_VALUE + VALUE_DATA, timeoutSeconds);
        getOut.setPointer(0, Pointer.NULL);
        final int status = get.invokeInt(new Object[] {getWho, key, getInfo, local ? 2L : 1L, getOut});
        final Pointer value = getOut.getPointer(0);
        if (status != SUCCESS || value == null)
        {
            return new Status(status == SUCCESS ? ERR_NOT_FOUND : status, null);
        }
        try
        {
            final short type = value.getShort(VALUE_TYPE);
            switch (type)
            {
                case TYPE_STRING:
                    final Pointer s = value.getPointer(VALUE_DATA);
                    return new Status(SUCCESS, s == null ? "" : s.getString(0, StandardCharsets.US_ASCII.name()));
                case TYPE_UINT32:
                    return new Status(SUCCESS, Integer.toUnsignedString(value.getInt(VALUE_DATA)));
                case TYPE_INT:
                    return new Status(SUCCESS, Integer.toString(value.getInt(VALUE_DATA)));
                default:
                    return new Status(SUCCESS, "pmix-type-" + type);
            }
        }
        finally
        {
            // PMIX_VALUE_RELEASE: the data the value points to, then the value itself (malloc'ed by libpmix)
            valueDestruct.invokeVoid(new Object[] {value});
            Native.free(Pointer.nativeValue(value));
        }
    }

    /** {@code PMIx_Error_string(status)}, e.g. {@code PMIX_ERR_NOT_FOUND}. */
    String errorString(final int status)
    {
        final String s = errorString.invokeString(new Object[] {status}, false);
        return s == null ? "PMIx status " + status : s;
    }

    /** A new zeroed {@code pmix_proc_t}. */
    static Memory newProc()
    {
        final Memory proc = new Memory(PROC_SIZE);
        proc.clear();
        return proc;
    }

    static String nspace(final Memory proc)
    {
        return proc.getString(PROC_NSPACE, StandardCharsets.US_ASCII.name());
    }

    static int rank(final Memory proc)
    {
        return proc.getInt(PROC_RANK);
    }

    private static void setInfoKey(final Memory info, final long at, final String key)
    {
        final byte[] bytes = key.getBytes(StandardCharsets.US_ASCII);
        info.write(at + INFO_KEY, bytes, 0, bytes.length); // the rest of char[512] is already zero
    }

    private static Memory cString(final String s)
    {
        final byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
        final Memory m = new Memory(bytes.length + 1L);
        m.write(0, bytes, 0, bytes.length);
        m.setByte(bytes.length, (byte)0);
        return m;
    }

    /** A call's status and, on success, its value. */
    static final class Status
    {
        final int status;
        final String value;

        Status(final int status, final String value)
        {
            this.status = status;
            this.value = value;
        }
    }
}
