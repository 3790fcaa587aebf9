package org.shmav;

/**
 * A libfabric call that failed as a whole: what C reports as a negative return value. The message
 * names the call, the error and the cause, e.g.
 * {@code fi_av_open: FI_ENOENT (No such file or directory): named AV 'job7' does not exist in /dev/shm}.
 * Per-address insert failures are not exceptions (see {@link AddressVector#insert}).
 *
 * <p>The layers below the API know what went wrong, not which call they serve: they raise an error
 * with an errno and a detail only ({@link #FabricException(int, String)}), and the call that reaches
 * them adds its name where it is made ({@link #in}). The name is set once: the first to name it wins,
 * so a check that named its call keeps that name.
 */
public class FabricException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** The positive libfabric error number. */
    private final int errno;
    /** The call that failed; null until the call that reached the failure names itself ({@link #in}). */
    private volatile String call;
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
     * An error raised below the API, which does not know the call it serves: the call adds its name
     * ({@link #in}) where it is made.
     *
     * @param errno  the libfabric error number, positive or negative (stored positive)
     * @param detail what went wrong and what to do about it
     */
    public FabricException(final int errno, final String detail)
    {
        this(null, errno, detail, null);
    }

    /**
     * An error raised below the API caused by {@code cause}; the call adds its name ({@link #in}).
     *
     * @param errno  the libfabric error number, positive or negative (stored positive)
     * @param detail what went wrong and what to do about it
     * @param cause  the underlying exception, or null
     */
    public FabricException(final int errno, final String detail, final Throwable cause)
    {
        this(null, errno, detail, cause);
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
        super(null, cause);
        this.errno = Math.abs(errno);
        this.call = call;
        this.detail = detail;
    }

    /**
     * Names the call this error failed, unless a call named it already: what the API layer does where
     * the call is made, e.g. {@code catch (FabricException e) { throw e.in("fi_av_insert"); }}.
     *
     * @param call the call that failed, e.g. {@code fi_av_insert}
     * @return this exception, to be thrown
     */
    public FabricException in(final String call)
    {
        if (this.call == null)
        {
            this.call = call;
        }
        return this;
    }

    /**
     * {@code call: FI_Exxx (strerror): detail}; without the call's part while no call named it.
     *
     * @return the message
     */
    @Override
    public String getMessage()
    {
        final String c = call;
        return (c == null ? "" : c + ": ") + FiErrno.name(errno) + " (" + FiErrno.strerror(errno) + "): " + detail;
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
     * @return e.g. {@code fi_av_open}; null for an error no call has named yet
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
