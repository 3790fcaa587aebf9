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

    /** The positive libfabric error number. */
    private final int errno;
    /** The call that failed. */
    private final String call;
    /** The cause in words. */
    private final String detail;

    /**
     * An error of {@code call} with no underlying cause.
     *
     * @param call   the call that failed, e.g. {@code fi_av_open}
     * @param errno  the libfabric error number, positive or negative (stored positive)
     * @param detail what went wrong and what to do about it
     */
    public FabricException(final String call, final int errno, final String detail)
    {
        this(call, errno, detail, null);
    }

    /**
     * An error of {@code call} caused by {@code cause}.
     *
     * @param call   the call that failed, e.g. {@code fi_av_open}
     * @param errno  the libfabric error number, positive or negative (stored positive)
     * @param detail what went wrong and what to do about it
     * @param cause  the underlying exception, or null
     */
    public FabricException(final String call, final int errno, final String detail, final Throwable cause)
    {
        super(call + ": " + FiErrno.name(errno) + " (" + FiErrno.strerror(errno) + "): " + detail, cause);
        this.errno = Math.abs(errno);
        this.call = call;
        this.detail = detail;
    }

    /**
     * The positive libfabric error number.
     *
     * @return e.g. {@link FiErrno#EINVAL}
     */
    public int errno()
    {
        return errno;
    }

    /**
     * The call that failed, as the message names it.
     *
     * @return e.g. {@code fi_av_open}
     */
    public String call()
    {
        return call;
    }

    /**
     * The cause in words, without the call and error name.
     *
     * @return the part of the message after {@code call: FI_Exxx (...): }
     */
    public String detail()
    {
        return detail;
    }
}
