package org.shmav.av;

import static org.shmav.av.AvCallChecks.invalid;

import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.shmav.FabricException;
import org.shmav.FiErrno;
import org.shmav.slots.AuthKeyTable;
import org.shmav.slots.Region;

/**
 * The auth keys of one AV handle (FI_AV_AUTH_KEY): fi_av_insert_auth_key, fi_av_lookup_auth_key, the
 * handles ({@link FiAddrCodec#authKeyHandle}) and their removal, which is refused while an enabled
 * endpoint was configured with the key. Writes run under the handle's write lock, reads take no lock,
 * and the set of enabled endpoints is concurrent, so safe for use by many threads.
 */
final class AvAuthKeys
{
    private final AddressVectorImpl av;
    private final GrowableRegion regions;
    private final HandleLock writeLock;
    private final boolean enabled;
    private final Set<EndpointImpl> enabledEndpoints = ConcurrentHashMap.newKeySet();

    AvAuthKeys(final AddressVectorImpl av, final GrowableRegion regions, final HandleLock writeLock)
    {
        this.av = av;
        this.regions = regions;
        this.writeLock = writeLock;
        this.enabled = av.domain().attr().avAuthKey();
    }

    /** {@code fi_av_insert_auth_key}: the new key's handle; FI_ENOSPC when every entry is in use. */
    long insert(final ByteBuffer authKey, final long flags)
    {
        av.checkOpen();
        av.checkWritable();
        checkEnabled();
        if (flags != 0)
        {
            throw invalid("flags=0x" + Long.toHexString(flags) + " must be 0");
        }
        final int size = regions.current().authKeys().keySize();
        if (authKey == null || authKey.remaining() != size)
        {
            throw invalid("the key must be exactly authKeySize=" + size + " bytes");
        }
        writeLock.lock();
        try
        {
            regions.startCall();
            final Region region = regions.current();
            final long index = region.authKeys().insert(region.writer(), authKey);
            if (index == -FiErrno.EOVERFLOW)
            {
                throw new FabricException(FiErrno.EOVERFLOW, "the key holds every " +
                    "reference it can (2^32 - 1); remove it once first");
            }
            if (index == -FiErrno.EAGAIN)
            {
                throw new FabricException(FiErrno.EAGAIN, "another live process kept the " +
                    "auth-key lock, or kept inserting the same key, past the deadline (frozen?); try again");
            }
            if (index < 0)
            {
                throw new FabricException(FiErrno.ENOSPC, "all " +
                    region.authKeys().capacity() + " auth-key entries are in use");
            }
            return FiAddrCodec.authKeyHandle(index);
        }
        finally
        {
            writeLock.unlock();
        }
    }

    /** {@code fi_av_lookup_auth_key} of an auth-key handle or of an entry inserted with FI_AUTH_KEY. */
    int lookup(final long fiAddr, final ByteBuffer authKey)
    {
        av.checkOpen();
        checkEnabled();
        if (authKey == null)
        {
            throw invalid("authKey is null");
        }
        long keyIndex = indexOf(fiAddr);
        if (keyIndex < 0)
        {
            final long index = av.indexOf(fiAddr);
            final long bound = index < 0 ? Long.MIN_VALUE : regions.current().table().authKeyOf(index);
            keyIndex = bound == Long.MIN_VALUE || bound < 0 ? -1 : bound;
        }
        final int size = keyIndex < 0 ? -1 : regions.current().authKeys().lookup(keyIndex, authKey);
        if (size < 0)
        {
            throw invalid("0x" + Long.toHexString(fiAddr) +
                " is neither an auth-key handle nor an entry inserted with FI_AUTH_KEY");
        }
        return size;
    }

    /** The index behind an auth-key handle, or -1 when it is not a valid handle. */
    long indexOf(final long handle)
    {
        final long index = enabled ? FiAddrCodec.authKeyHandleIndex(handle) : -1;
        if (index < 0)
        {
            return -1;
        }
        return regions.current().authKeys().isValid(index) ? index : -1;
    }

    /** Sets the user id of the key behind {@code handle}; false when it is not a valid handle. */
    boolean setUserId(final long handle, final long userId)
    {
        final long keyIndex = indexOf(handle);
        return keyIndex >= 0 && regions.current().authKeys().setUserId(keyIndex, userId);
    }

    /** Releases the key behind {@code handle}: 0, -FI_EINVAL for no valid handle, -FI_EBUSY while an endpoint uses it. */
    int remove(final long handle)
    {
        final long index = indexOf(handle);
        if (index < 0)
        {
            return -FiErrno.EINVAL;
        }
        for (final EndpointImpl ep : enabledEndpoints)
        {
            if (ep.usesAuthKey(handle))
            {
                return -FiErrno.EBUSY;
            }
        }
        return regions.current().authKeys().release(index);
    }

    /** Handles of every valid auth key: what an endpoint is configured with when enabled. */
    long[] validHandles()
    {
        final AuthKeyTable keys = regions.current().authKeys();
        final long[] all = new long[keys.capacity()];
        int n = 0;
        for (int i = 0; i < keys.capacity(); i++)
        {
            if (keys.isValid(i))
            {
                all[n++] = FiAddrCodec.authKeyHandle(i);
            }
        }
        return java.util.Arrays.copyOf(all, n);
    }

    void endpointEnabled(final EndpointImpl ep)
    {
        enabledEndpoints.add(ep);
    }

    void endpointClosed(final EndpointImpl ep)
    {
        enabledEndpoints.remove(ep);
    }

    private void checkEnabled()
    {
        if (!enabled)
        {
            throw invalid("the domain was not opened with avAuthKey (FI_AV_AUTH_KEY)");
        }
    }
}
