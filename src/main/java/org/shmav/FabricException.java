package org.shmav;

/**
 * A libfabric call that failed as a whole: what C reports as a negative return value. The message
 * names the call, the error and the cause, e.g.
 * {@code fi_av_open: FI_ENOENT (No such file or directory): named AV 'job7' does not exist in /dev/shm}.
 * Per-address insert failures are not exceptions (see {@link AddressVector#insert}).
 */
public class FabricException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int errno;

    public FabricException(final String call, final int errno, final String detail)
    {
        this(call, errno, detail, null);
    }

    public FabricException(final String call, final int errno, final String detail, final Throwable cause)
    {
        super(call + ": " + FiErrno.name(errno) + " (" + FiErrno.strerror(errno) + "): " + detail, cause);
        this.errno = Math.abs(errno);
    }

    /** The positive libfabric error number, e.g. {@link FiErrno#EINVAL}. */
    public int errno()
    {
        return errno;
    }
}
