package org.shmav;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * An address vector ({@code fi_av}): maps endpoint addresses to compact fi_addr values.
 *
 * <p>A private AV (no name) lives in this process and grows past its count. A named AV lives in a
 * file under the domain's shm directory (see {@code shm-layout.md}); every process that opens the
 * name sees the same entries and the same fi_addr values.
 *
 * <p><b>Thread safety.</b> Every method may be called by many threads at once, except {@link #close()},
 * which must not race with other calls on the same handle. {@link #lookup} and {@link #reverseLookup}
 * are lock-free and allocate nothing: they read a slot's state and generation before and after copying
 * it, so they never return a torn address. Writers of a named AV coordinate across processes with
 * compare-and-swap only; writers of a private AV are serialised by a lock inside the handle.
 *
 * <p><b>fi_addr values.</b> FI_AV_TABLE: the slot index. FI_AV_MAP: {@code attr().mapAddr() + index}.
 * Either way the top {@code rxCtxBits} bits (see {@link Fi#rxAddr}) and, on a domain with
 * {@code maxGroupId > 0}, bits 32..63 (see {@link Fi#groupAddr}) are ignored by lookup.
 */
public interface AddressVector extends AutoCloseable
{
    /**
     * The resolved attributes of {@code fi_av_open} (beyond libfabric, which has no query). For a named
     * AV they describe the AV as it is, whatever the caller asked for: its type, its capacity now as
     * {@code count} (it grows, in any process), the {@code maxCount} it was created with, its map_addr
     * base, and its flags (FI_AV_USER_ID and FI_SYMMETRIC of the creator or of this opener). What each
     * opener applies to its own handle stays the opener's: {@code rxCtxBits} (fi_av(3): fi_rx_addr uses
     * the rx_ctx_bits of the AV attributes the address came from), FI_READ and FI_EVENT. A private AV
     * reports the attributes it was opened with, type resolved. Answers on a closed handle too (with the
     * capacity it last saw).
     *
     * @return the attributes of this handle's AV
     */
    AvAttr attr();

    /**
     * {@code fi_av_insert}: inserts {@code count} addresses of {@code addrlen} bytes read from
     * {@code addrs} (position to limit; for FI_ADDR_STR, {@code count} NUL-terminated strings one after
     * another, where one longer than {@value AddrFormat#MAX_STR_LEN} bytes with its NUL fails alone; for
     * opaque addresses of varying length ({@link #varyingAddrLen()}), one address, of the buffer's
     * remaining bytes, and a {@code count} above 1 is FI_EINVAL). The buffer's position is not
     * changed. Allocates nothing on a sockaddr AV or one of a fixed-length format.
     *
     * <p>A failed address is not an exception: its {@code fiAddr[i]} is {@link Fi#ADDR_NOTAVAIL} and, with
     * {@link Fi#SYNC_ERR}, {@code ((int[]) context)[i]} holds a positive errno: FI_EADDRNOTAVAIL for an
     * invalid address (port 0, unspecified address, non-zero {@code sin_zero}, wrong family), FI_ENOSPC when
     * a named AV is full, FI_EAGAIN when another live process kept what this address needed past the call's
     * deadline. A call waits on other processes for 5 s at most in all, however many addresses it holds:
     * once that deadline has passed, every address that would wait fails with FI_EAGAIN at once. An address already
     * present returns its existing fi_addr, counts as inserted and
     * takes a reference (it then needs one more remove). With {@link Fi#EVENT} set at open, returns 0 and
     * posts one error entry per failed address, then one {@link EqEvent#AV_COMPLETE} event. Callers who
     * want the failures as a value use {@link #insert(ByteBuffer, int)}.
     *
     * @param addrs   the addresses in the domain's layout, from position to limit
     * @param count   how many addresses to insert
     * @param fiAddr  receives the fi_addr of each address; may be null; with {@link Fi#AV_USER_ID} it
     *                also carries the user id in, and with {@link Fi#AUTH_KEY} the auth-key handle in
     * @param flags   0, or {@link Fi#MORE}, {@link Fi#SYNC_ERR}, {@link Fi#AV_USER_ID}, {@link Fi#AUTH_KEY}
     * @param context with {@link Fi#SYNC_ERR}, an {@code int[]} of at least {@code count} elements that
     *                receives the errno of each address; otherwise returned in the FI_EVENT completion
     * @return the number of addresses inserted (0 with FI_EVENT: the count is in the event)
     * @throws FabricException FI_EBADFLAGS for other flags; FI_EINVAL for short buffers, a bad SYNC_ERR
     *                         context, a missing fiAddr where input is needed, a closed handle; FI_ENOEQ for
     *                         FI_EVENT without a bound queue; FI_EPERM on a read-only handle
     */
    int insert(ByteBuffer addrs, int count, long[] fiAddr, long flags, Object context);

    /**
     * {@code fi_av_insert} for an FI_ADDR_STR domain, one string per address; otherwise as
     * {@link #insert(ByteBuffer, int, long[], long, Object)}. A null string, or one holding a NUL, is an
     * invalid address (FI_EADDRNOTAVAIL for it alone).
     *
     * @param addrs   the address strings, without NULs
     * @param fiAddr  receives the fi_addr of each address; may be null
     * @param flags   as for {@link #insert(ByteBuffer, int, long[], long, Object)}
     * @param context as for {@link #insert(ByteBuffer, int, long[], long, Object)}
     * @return the number of addresses inserted
     * @throws FabricException FI_EINVAL for a null array, on a sockaddr domain or a closed handle; and the
     *                         errors of {@link #insert(ByteBuffer, int, long[], long, Object)}
     */
    int insert(String[] addrs, long[] fiAddr, long flags, Object context);

    /**
     * {@code fi_av_insertsvc}: inserts the address of {@code node} (numeric or a host name, resolved by
     * the JDK resolver; every resolved address of the domain's family is tried, the first valid one is
     * inserted) and {@code service} (a port number). On an FI_ADDR_STR domain {@code node} is the address
     * and {@code service} must be null.
     *
     * @param node    host name or numeric address
     * @param service port number as text; null on an FI_ADDR_STR domain
     * @param fiAddr  receives the fi_addr; may be null
     * @param flags   as for {@link #insert(ByteBuffer, int, long[], long, Object)}
     * @param context as for {@link #insert(ByteBuffer, int, long[], long, Object)}
     * @return 1 when inserted, 0 when not (the errno is in the FI_SYNC_ERR context)
     * @throws FabricException FI_EINVAL for a null node or service (a non-null service on FI_ADDR_STR), a
     *                         service that is not a port 0..65535, a closed handle; and the errors of
     *                         {@link #insert(ByteBuffer, int, long[], long, Object)}
     */
    int insertSvc(String node, String service, long[] fiAddr, long flags, Object context);

    /**
     * {@code fi_av_insertsym}: inserts {@code nodeCnt x svcCnt} addresses: nodes {@code node .. node+nodeCnt-1}
     * (an IPv4 or IPv6 literal counted upward, or a host name with a numeric suffix), each with services
     * {@code service .. service+svcCnt-1}, all services of a node before the next node.
     *
     * @param node    the first node
     * @param nodeCnt how many nodes
     * @param service the first service (port number)
     * @param svcCnt  how many services per node
     * @param fiAddr  receives the fi_addr of each address, {@code nodeCnt * svcCnt} of them; may be null
     * @param flags   as for {@link #insert(ByteBuffer, int, long[], long, Object)}
     * @param context as for {@link #insert(ByteBuffer, int, long[], long, Object)}
     * @return the number of addresses inserted
     * @throws FabricException FI_EINVAL for a null node or service, a negative count, a node that cannot be
     *                         counted, services past 65535, too many addresses for one call, a closed handle;
     *                         FI_ENOSYS on an FI_ADDR_STR domain; and the errors of
     *                         {@link #insert(ByteBuffer, int, long[], long, Object)}
     */
    int insertSym(String node, int nodeCnt, String service, int svcCnt, long[] fiAddr, long flags, Object context);

    /**
     * {@code fi_av_remove}: drops one reference on each of {@code fiAddr[0..count)}; an entry goes when its
     * last reference does, and its index is then reused by a later insert. Every element is processed
     * before an error is thrown.
     *
     * @param fiAddr the entries, or with {@link Fi#AUTH_KEY} the auth-key handles, to remove
     * @param count  how many elements of {@code fiAddr} to process
     * @param flags  0 or {@link Fi#AUTH_KEY}
     * @throws FabricException after every element was processed, the first that applies: FI_EBUSY for an
     *                         auth key an enabled endpoint uses; FI_EAGAIN when another live process kept an
     *                         index busy past the call's deadline (remove those again); FI_EINVAL when any
     *                         element was unset, removed or out of range. Before any: FI_EINVAL for other
     *                         flags or a closed handle, FI_EPERM on a read-only handle
     */
    void remove(long[] fiAddr, int count, long flags);

    /**
     * {@code fi_av_lookup}: copies {@code min(addr.remaining(), addrlen)} bytes of the address at
     * {@code fiAddr} into {@code addr} at its position (the position is not changed). Lock-free and
     * allocation-free; {@link #findAddress(long)} is the Java form.
     *
     * @param fiAddr the entry to read
     * @param addr   receives the address
     * @return addrlen, the size the whole address needs (larger than {@code addr.remaining()} when truncated)
     * @throws FabricException FI_EINVAL for an unset, removed or out-of-range fi_addr (including
     *                         ADDR_NOTAVAIL), a null buffer or a closed handle
     */
    int lookup(long fiAddr, ByteBuffer addr);

    /**
     * {@code fi_av_lookup} as text: the string of an FI_ADDR_STR AV, the {@code fi_av_straddr} text of a
     * sockaddr AV. {@link #findString(long)} is the form that treats an unset entry as absent.
     *
     * @param fiAddr the entry to read
     * @return the address as text
     * @throws FabricException FI_EINVAL as {@link #lookup(long, ByteBuffer)}
     */
    String lookupString(long fiAddr);

    /**
     * {@code fi_av_straddr}: the address at {@code addr}'s position in libfabric's text form, e.g.
     * {@code fi_sockaddr_in://10.0.0.1:5000}. Reads only the buffer: answers on a closed handle too.
     *
     * @param addr an address in the domain's layout
     * @return its text, or null for a null buffer; on a sockaddr domain, an address of either IP family is
     *         printed by its own family, as libfabric does, and one of neither family is null
     */
    String straddr(ByteBuffer addr);

    /**
     * {@code fi_av_bind} (deprecated in libfabric): binds the event queue of an AV opened with FI_EVENT.
     *
     * @param eq    the queue that receives insert completions
     * @param flags 0
     * @throws FabricException FI_EINVAL when the AV was not opened with FI_EVENT, for flags != 0, a queue
     *                         already bound or a closed handle
     */
    void bind(EventQueue eq, long flags);

    /**
     * {@code fi_av_insert_auth_key}: stores an authorization key of the domain's authKeySize; inserting the
     * same key again returns the same handle and takes a reference.
     *
     * @param authKey the key, from position to limit
     * @param flags   0
     * @return the key's auth-key handle, usable as an fi_addr with {@link Fi#AUTH_KEY}
     * @throws FabricException FI_EINVAL when the domain was not opened with avAuthKey, for a wrong size,
     *                         flags != 0 or a closed handle; FI_ENOSPC when the AV's key table is full;
     *                         FI_EPERM on a read-only handle
     */
    long insertAuthKey(ByteBuffer authKey, long flags);

    /**
     * {@code fi_av_lookup_auth_key}: copies the key of an auth-key handle, or of an address inserted with
     * FI_AUTH_KEY, truncated to {@code authKey.remaining()}.
     *
     * @param fiAddr  an auth-key handle or an fi_addr
     * @param authKey receives the key at its position
     * @return the key size
     * @throws FabricException FI_EINVAL for an unknown handle, an address without a key or a closed handle
     */
    int lookupAuthKey(long fiAddr, ByteBuffer authKey);

    /**
     * {@code fi_av_set_user_id}: sets the user id of an entry (or, with {@link Fi#AUTH_KEY}, of an auth-key
     * handle).
     *
     * @param fiAddr the entry or auth-key handle
     * @param userId the id to report for it
     * @param flags  0 or {@link Fi#AUTH_KEY}
     * @throws FabricException FI_EINVAL when the AV was not opened with {@link Fi#AV_USER_ID}, for other
     *                         flags, an invalid fi_addr or a closed handle; FI_EPERM on a read-only handle
     */
    void setUserId(long fiAddr, long userId, long flags);

    /**
     * The user id of an entry (beyond libfabric, where the provider reports it in completions).
     *
     * @param fiAddr the entry
     * @return its user id, {@link Fi#ADDR_NOTAVAIL} until one is set
     * @throws FabricException FI_EINVAL for an invalid fi_addr or a closed handle
     */
    long userId(long fiAddr);

    /**
     * {@code fi_av_set}: opens an AV set over this AV handle. The initial members are, in index order:
     * <ul>
     * <li>with {@link Fi#UNIVERSE}: every valid entry of the AV now, whatever the range, stride and count
     *     (FI_UNIVERSE overrides them, as libfabric's cxi provider does);</li>
     * <li>with a range ({@code startAddr} and {@code endAddr} not {@link Fi#ADDR_NOTAVAIL}, FI_AV_TABLE
     *     only): the valid entries {@code start + stride * i <= end}; invalid entries are skipped and a
     *     stride of 0 means 1;</li>
     * <li>otherwise (both {@link Fi#ADDR_NOTAVAIL}): none.</li>
     * </ul>
     * A non-zero {@code count} caps the set's size (not with FI_UNIVERSE); 0 lets it grow without limit.
     * The flags FI_BARRIER_SET ... FI_GATHER_SET are recorded ({@link AvSet#attr()}) and restrict nothing:
     * shmav runs no collectives. A communication key is either absent (null or empty) or exactly 8 bytes; it is
     * recorded and not interpreted. The set holds a reference on this AV until it is closed.
     *
     * @param attr the set's attributes
     * @return the open set; close it to release its reference on this AV
     * @throws FabricException FI_EINVAL when this AV is closed; when attr is null; for unknown flags; for a
     *                         negative count; for a comm key of another size; and, without FI_UNIVERSE:
     *                         when exactly one of start and end is FI_ADDR_NOTAVAIL, for a range on
     *                         FI_AV_MAP or with a comm key, when start &gt; end, when the range spans more
     *                         than {@code count} addresses ({@code (end - start) / stride + 1}, count &gt; 0),
     *                         for a stride &gt; 1 without a range
     */
    AvSet openSet(AvSetAttr attr);

    /**
     * {@code fi_close}: closes this handle. Afterwards every call that reads or changes the AV's entries
     * (everything but {@link #attr()}, {@link #isReadOnly()}, {@link #straddr(ByteBuffer)} and
     * {@link #addrFormat()}, which describe fixed properties) throws FI_EINVAL "AV is closed"; closing again
     * does nothing. A named AV's file stays: {@link Domain#unlinkAv(String)} removes it.
     *
     * @throws FabricException FI_EBUSY while an endpoint or AV set references the AV
     */
    @Override
    void close();

    /**
     * The number of valid entries now, counted across every process that shares the AV (beyond libfabric).
     *
     * @return entries inserted and not yet removed
     * @throws FabricException FI_EINVAL on a closed handle
     */
    long count();

    /**
     * Waits until {@link #count()} is at least {@code n} (beyond libfabric): how a rank waits for its peers.
     * Like every wait of shmav ({@link Domain#awaitAv}, {@link Rank#awaitAll}), it ends a timeout by
     * throwing FI_ETIMEDOUT, so that a caller cannot take a timeout for success by ignoring a result.
     *
     * @param n       the count to wait for
     * @param timeout how long to wait at most
     * @return true, once the count is reached (kept from 0.x, where false meant a timeout)
     * @throws FabricException FI_ETIMEDOUT when the count is still below {@code n} after {@code timeout}
     *                         (the message says the count reached); FI_EINVAL on a closed handle (also when
     *                         it is closed while waiting)
     */
    boolean awaitCount(long n, Duration timeout);

    /**
     * Reverse lookup (beyond libfabric): the fi_addr of an inserted address. Lock-free and allocation-free;
     * {@link #findFiAddr(InetSocketAddress)} is the Java form.
     *
     * @param addr an address in the domain's layout at the buffer's position
     * @return its fi_addr, or {@link Fi#ADDR_NOTAVAIL} when it is not in the AV; an address inserted with
     *         {@link Fi#AUTH_KEY} is an entry of its own, not found here (this finds entries without a key)
     * @throws FabricException FI_EINVAL for a null buffer or a closed handle
     */
    long reverseLookup(ByteBuffer addr);

    /**
     * Inserts one address at a chosen index (beyond libfabric), for launchers that publish rank r's address
     * at fi_addr r. The same address already at that index is a success (a reference is taken).
     *
     * @param index the slot index (for FI_AV_MAP the fi_addr is {@code attr().mapAddr() + index})
     * @param addr  the address in the domain's layout
     * @return its fi_addr
     * @throws FabricException FI_EADDRINUSE when the index holds another address; FI_EALREADY when the
     *                         address is present at another index; FI_EINVAL for an index out of range,
     *                         an invalid address or a closed handle; FI_EPERM on a read-only handle
     */
    long insertAt(long index, ByteBuffer addr);

    /**
     * Repairs what dead processes left behind (beyond libfabric): slot claims and removals abandoned mid-way
     * are undone or finished, their attacher entries freed; so are slots held in the name of an attacher
     * entry that no process holds, which only a damaged file has. Live writers are never disturbed. Writers
     * also do this automatically when they meet a dead owner.
     *
     * @return how many slots were repaired
     * @throws FabricException FI_EPERM on a read-only handle; FI_EINVAL on a closed handle
     */
    int recover();

    /**
     * Whether this handle was opened with {@link Fi#READ} (beyond libfabric). Answers on a closed handle too.
     *
     * @return true for a read-only handle
     */
    boolean isReadOnly();

    /**
     * The domain's address format: the layout of every address this AV stores (beyond libfabric, where the
     * caller knows it from {@code fi_info}). Answers on a closed handle too.
     *
     * @return the format, e.g. {@link AddrFormat#SOCKADDR_IN}
     */
    AddrFormat addrFormat();

    /**
     * Bytes of one address ({@code fi_info.dest_addrlen}; beyond libfabric as a query): the format's length,
     * the domain's {@code addrLen} for FORMAT_UNSPEC, or the most bytes of one address when lengths vary
     * (FI_ADDR_STR, FORMAT_UNSPEC with {@code maxAddrLen}). A lookup buffer this long always holds the
     * address whole. Answers on a closed handle too.
     *
     * @return the length of one address, or the longest
     */
    int addrLen();

    /**
     * Whether this AV's opaque addresses have lengths of their own up to {@link #addrLen()} (FORMAT_UNSPEC with
     * {@code maxAddrLen}): insert takes one address per call, its length the buffer's remaining bytes, and
     * lookup reports each address's length. Answers on a closed handle too.
     *
     * @return true for opaque addresses of varying length
     */
    boolean varyingAddrLen();

    // Java conveniences, built only on the man-page methods above (AvConveniences): use those on hot
    // paths (lookup and insert of a ByteBuffer allocate nothing), these where a Java type reads better.

    /**
     * {@code fi_av_insert} of one socket address: the address is laid out as the AV's sockaddr and
     * inserted with FI_SYNC_ERR, and a failure becomes an exception. Inserting an address already present
     * returns its fi_addr and takes a reference, as {@link #insert(ByteBuffer, int, long[], long, Object)} does.
     *
     * @param address a resolved address of the AV's family (IPv4 for FI_SOCKADDR_IN, IPv6 for FI_SOCKADDR_IN6)
     * @return its fi_addr
     * @throws FabricException FI_EADDRNOTAVAIL when the address is null, unresolved, of the other family or not
     *                         a valid destination (port 0, 0.0.0.0, ::); FI_ENOSPC when a named AV is full;
     *                         FI_EINVAL on an FI_ADDR_STR AV or a closed handle; FI_EPERM on a read-only handle;
     *                         FI_EOPNOTSUPP on an AV opened with FI_EVENT
     */
    default long insert(final InetSocketAddress address)
    {
        return AvConveniences.insertAddress(this, address);
    }

    /**
     * {@code fi_av_insert} of one FI_ADDR_STR address, with failures as exceptions; see {@link #insert(InetSocketAddress)}.
     *
     * @param address the address string, without its NUL
     * @return its fi_addr
     * @throws FabricException FI_EADDRNOTAVAIL for an empty string, one with a control character (NUL included) or longer than
     *                         {@value AddrFormat#MAX_STR_LEN} bytes with its NUL; FI_ENOSPC when a named AV is
     *                         full; FI_EINVAL on a sockaddr AV or a closed handle; FI_EPERM on a read-only
     *                         handle; FI_EOPNOTSUPP on an AV opened with FI_EVENT
     */
    default long insert(final String address)
    {
        return AvConveniences.insertString(this, address);
    }

    /**
     * {@code fi_av_insert} of a batch without FI_SYNC_ERR plumbing: inserts {@code count} addresses read from
     * {@code addrs} as {@link #insert(ByteBuffer, int, long[], long, Object)} does (flags 0 plus FI_SYNC_ERR)
     * and returns, per address, its fi_addr or its errno.
     *
     * @param addrs the addresses in the AV's layout, from position to limit; the position is not changed
     * @param count how many addresses {@code addrs} holds
     * @return the fi_addr or errno of each address; failed addresses are results, never exceptions
     * @throws FabricException FI_EINVAL for a null or short buffer, a negative count or a closed handle;
     *                         FI_EPERM on a read-only handle; FI_EOPNOTSUPP on an AV opened with FI_EVENT
     */
    default InsertResult insert(final ByteBuffer addrs, final int count)
    {
        return AvConveniences.insertBatch(this, addrs, count);
    }

    /**
     * {@code fi_av_insert} of a batch of socket addresses. An address that is null, unresolved or of the
     * other family fails alone with FI_EADDRNOTAVAIL, like any invalid address.
     *
     * @param addresses the addresses, in the order their fi_addr values are wanted
     * @return the fi_addr or errno of each address
     * @throws FabricException FI_EINVAL for a null list, on an FI_ADDR_STR AV or a closed handle; FI_EPERM on a
     *                         read-only handle; FI_EOPNOTSUPP on an AV opened with FI_EVENT
     */
    default InsertResult insertAll(final List<InetSocketAddress> addresses)
    {
        return AvConveniences.insertAll(this, addresses);
    }

    /**
     * {@code fi_av_insert} of a batch of FI_ADDR_STR strings; a null or invalid string fails alone with
     * FI_EADDRNOTAVAIL.
     *
     * @param addresses the address strings, without NULs
     * @return the fi_addr or errno of each address
     * @throws FabricException FI_EINVAL for a null list, on a sockaddr AV or a closed handle; FI_EPERM on a
     *                         read-only handle; FI_EOPNOTSUPP on an AV opened with FI_EVENT
     */
    default InsertResult insertAllStrings(final List<String> addresses)
    {
        return AvConveniences.insertAllStrings(this, addresses);
    }

    /**
     * {@code fi_av_remove} of one fi_addr with flags 0: drops one reference on it.
     *
     * @param fiAddr the entry to remove
     * @throws FabricException FI_EINVAL when it is unset, removed or out of range, or the handle is closed;
     *                         FI_EPERM on a read-only handle
     */
    default void remove(final long fiAddr)
    {
        remove(new long[] {fiAddr}, 1, 0);
    }

    /**
     * {@code fi_av_lookup} of a socket-address AV, where an unset entry is a normal answer.
     *
     * @param fiAddr the fi_addr to look up
     * @return the address stored there, or empty when the fi_addr is unset, removed or out of range
     * @throws FabricException FI_EINVAL on an FI_ADDR_STR AV or a closed handle
     */
    default Optional<InetSocketAddress> findAddress(final long fiAddr)
    {
        AvConveniences.checkSockaddrFormat(this, "fi_av_lookup", "findString(long)");
        final ByteBuffer b = AvConveniences.lookup(this, fiAddr);
        return b == null ? Optional.empty() : Optional.of(Addresses.toInetSocketAddress(b));
    }

    /**
     * {@code fi_av_lookup} as text, where an unset entry is a normal answer: the string of an FI_ADDR_STR AV,
     * the {@code fi_av_straddr} text (e.g. {@code fi_sockaddr_in://10.0.0.1:5000}) of the other formats, and
     * the bytes in hex ({@link Addresses#hex}) of an opaque FORMAT_UNSPEC address.
     *
     * @param fiAddr the fi_addr to look up
     * @return the address as text, or empty when the fi_addr is unset, removed or out of range
     * @throws FabricException FI_EINVAL on a closed handle
     */
    default Optional<String> findString(final long fiAddr)
    {
        final ByteBuffer b = AvConveniences.lookup(this, fiAddr);
        return b == null ? Optional.empty() : Optional.of(AvConveniences.text(this, b));
    }

    /**
     * {@code fi_av_lookup} of the address's bytes, where an unset entry is a normal answer: any format, its
     * own length for FI_ADDR_STR (NUL included) and varying FORMAT_UNSPEC.
     *
     * @param fiAddr the fi_addr to look up
     * @return a copy of the address, or empty when the fi_addr is unset, removed or out of range
     * @throws FabricException FI_EINVAL on a closed handle
     */
    default Optional<byte[]> findBytes(final long fiAddr)
    {
        final ByteBuffer b = AvConveniences.lookup(this, fiAddr);
        if (b == null)
        {
            return Optional.empty();
        }
        final byte[] out = new byte[b.remaining()];
        b.get(out);
        return Optional.of(out);
    }

    /**
     * {@code fi_av_insert} of one address given as bytes (any format: its layout, or for FORMAT_UNSPEC the
     * opaque address, e.g. a UCX worker address), with failures as exceptions; see {@link #insert(InetSocketAddress)}.
     *
     * @param address the address's bytes
     * @return its fi_addr
     * @throws FabricException FI_EADDRNOTAVAIL when the bytes are not a valid address of the AV (wrong length,
     *                         all zero, ...); FI_ENOSPC when a named AV is full; FI_EINVAL for null or a closed
     *                         handle; FI_EPERM on a read-only handle; FI_EOPNOTSUPP on an AV opened with FI_EVENT
     */
    default long insertBytes(final byte[] address)
    {
        return AvConveniences.insertBytes(this, address);
    }

    /**
     * Reverse lookup ({@link #reverseLookup(ByteBuffer)}) of a socket address.
     *
     * @param address the address to find
     * @return its fi_addr, or empty when it is not in the AV (including null, unresolved or another family)
     * @throws FabricException FI_EINVAL on an FI_ADDR_STR AV or a closed handle
     */
    default OptionalLong findFiAddr(final InetSocketAddress address)
    {
        return AvConveniences.findFiAddr(this, address);
    }

    /**
     * Reverse lookup ({@link #reverseLookup(ByteBuffer)}) of an FI_ADDR_STR string.
     *
     * @param address the address string, without its NUL
     * @return its fi_addr, or empty when it is not in the AV
     * @throws FabricException FI_EINVAL for a null string, on a sockaddr AV or a closed handle
     */
    default OptionalLong findFiAddr(final String address)
    {
        return AvConveniences.findFiAddr(this, address);
    }

    /**
     * Reverse lookup ({@link #reverseLookup(ByteBuffer)}) of an address in the AV's layout.
     *
     * @param addr the address at the buffer's position
     * @return its fi_addr, or empty when it is not in the AV
     * @throws FabricException FI_EINVAL for a null buffer or a closed handle
     */
    default OptionalLong findFiAddr(final ByteBuffer addr)
    {
        final long fiAddr = reverseLookup(addr);
        return fiAddr == Fi.ADDR_NOTAVAIL ? OptionalLong.empty() : OptionalLong.of(fiAddr);
    }

    /**
     * The valid entries, in fi_addr order (beyond libfabric).
     *
     * <p><b>Consistency.</b> Weakly consistent, like a {@code ConcurrentHashMap} iterator: the call takes the
     * fi_addr of every entry valid when it scans that index (an FI_UNIVERSE AV set, {@link #openSet}, opened
     * and closed at once), and the stream looks each one up when it reaches it. So an entry valid throughout
     * appears exactly once; one removed before the stream reaches it is skipped; one inserted after the scan
     * passed its index is not seen; each address is read whole, never torn. Other processes' changes to a
     * named AV count like this process's. The stream never throws {@code ConcurrentModificationException}.
     *
     * <p>While the scan runs it holds a reference on the AV, so a {@link #close()} racing it in another
     * thread may get FI_EBUSY.
     *
     * @return a sequential stream of the entries; it holds no resource and need not be closed
     * @throws FabricException FI_EINVAL when the handle is closed (also if it is closed while the stream runs)
     */
    default Stream<AvEntry> entries()
    {
        return AvConveniences.entries(this);
    }
}
