package org.shmav;

/**
 * libfabric's error numbers ({@code rdma/fi_errno.h}), positive as libfabric defines them; a call that
 * fails in C with {@code -FI_EINVAL} throws a {@link FabricException} whose {@code errno()} is
 * {@link #EINVAL}.
 */
public final class FiErrno
{
    /** {@code FI_SUCCESS} (0): Success. */
    public static final int SUCCESS = 0;
    /** {@code FI_EPERM} (1): Operation not permitted. */
    public static final int EPERM = 1;
    /** {@code FI_ENOENT} (2): No such file or directory. */
    public static final int ENOENT = 2;
    /** {@code FI_EINTR} (4): Interrupted system call. */
    public static final int EINTR = 4;
    /** {@code FI_EIO} (5): Input/output error. */
    public static final int EIO = 5;
    /** {@code FI_E2BIG} (7): Argument list too long. */
    public static final int E2BIG = 7;
    /** {@code FI_EBADF} (9): Bad file descriptor. */
    public static final int EBADF = 9;
    /** {@code FI_EAGAIN} (11): Resource temporarily unavailable. */
    public static final int EAGAIN = 11;
    /** {@code FI_ENOMEM} (12): Cannot allocate memory. */
    public static final int ENOMEM = 12;
    /** {@code FI_EACCES} (13): Permission denied. */
    public static final int EACCES = 13;
    /** {@code FI_EFAULT} (14): Bad address. */
    public static final int EFAULT = 14;
    /** {@code FI_EBUSY} (16): Device or resource busy. */
    public static final int EBUSY = 16;
    /** {@code FI_EEXIST} (17): File exists. */
    public static final int EEXIST = 17;
    /** {@code FI_ENODEV} (19): No such device. */
    public static final int ENODEV = 19;
    /** {@code FI_EINVAL} (22): Invalid argument. */
    public static final int EINVAL = 22;
    /** {@code FI_EMFILE} (24): Too many open files. */
    public static final int EMFILE = 24;
    /** {@code FI_ENOSPC} (28): No space left on device. */
    public static final int ENOSPC = 28;
    /** {@code FI_ENOSYS} (38): Function not implemented. */
    public static final int ENOSYS = 38;
    /** {@code FI_ENOMSG} (42): No message of desired type. */
    public static final int ENOMSG = 42;
    /** {@code FI_ENODATA} (61): No data available. */
    public static final int ENODATA = 61;
    /** {@code FI_EOVERFLOW} (75): Value too large for defined data type. */
    public static final int EOVERFLOW = 75;
    /** {@code FI_EMSGSIZE} (90): Message too long. */
    public static final int EMSGSIZE = 90;
    /** {@code FI_ENOPROTOOPT} (92): Protocol not available. */
    public static final int ENOPROTOOPT = 92;
    /** {@code FI_EOPNOTSUPP} (95): Operation not supported. */
    public static final int EOPNOTSUPP = 95;
    /** {@code FI_EADDRINUSE} (98): Address already in use. */
    public static final int EADDRINUSE = 98;
    /** {@code FI_EADDRNOTAVAIL} (99): Cannot assign requested address. */
    public static final int EADDRNOTAVAIL = 99;
    /** {@code FI_ETIMEDOUT} (110): Connection timed out. */
    public static final int ETIMEDOUT = 110;
    /** {@code FI_EALREADY} (114): Operation already in progress. */
    public static final int EALREADY = 114;
    /** {@code FI_EINPROGRESS} (115): Operation now in progress. */
    public static final int EINPROGRESS = 115;
    /** {@code FI_ECANCELED} (125): Operation canceled. */
    public static final int ECANCELED = 125;
    /** {@code FI_EOTHER} (256): Unspecified error. */
    public static final int EOTHER = 256;
    /** {@code FI_ETOOSMALL} (257): Provided buffer is too small. */
    public static final int ETOOSMALL = 257;
    /** {@code FI_EOPBADSTATE} (258): Operation not permitted in current state. */
    public static final int EOPBADSTATE = 258;
    /** {@code FI_EAVAIL} (259): Error available. */
    public static final int EAVAIL = 259;
    /** {@code FI_EBADFLAGS} (260): Flags not supported. */
    public static final int EBADFLAGS = 260;
    /** {@code FI_ENOEQ} (261): Missing or unavailable event queue. */
    public static final int ENOEQ = 261;
    /** {@code FI_EDOMAIN} (262): Invalid resource domain. */
    public static final int EDOMAIN = 262;
    /** {@code FI_ENOCQ} (263): Missing or unavailable completion queue. */
    public static final int ENOCQ = 263;
    /** {@code FI_ENOAV} (267): Missing or unavailable address vector. */
    public static final int ENOAV = 267;

    private FiErrno()
    {
    }

    /**
     * {@code fi_strerror}: libfabric's text for an error number.
     *
     * @param errno a positive or negative error number
     * @return e.g. "Invalid argument" for {@link #EINVAL}; "Unspecified error" for an unknown number
     */
    public static String strerror(final int errno)
    {
        switch (Math.abs(errno))
        {
            case SUCCESS: return "Success";
            case EPERM: return "Operation not permitted";
            case ENOENT: return "No such file or directory";
            case EINTR: return "Interrupted system call";
            case EIO: return "Input/output error";
            case E2BIG: return "Argument list too long";
            case EBADF: return "Bad file descriptor";
            case EAGAIN: return "Resource temporarily unavailable";
            case ENOMEM: return "Cannot allocate memory";
            case EACCES: return "Permission denied";
            case EFAULT: return "Bad address";
            case EBUSY: return "Device or resource busy";
            case EEXIST: return "File exists";
            case ENODEV: return "No such device";
            case EINVAL: return "Invalid argument";
            case EMFILE: return "Too many open files";
            case ENOSPC: return "No space left on device";
            case ENOSYS: return "Function not implemented";
            case ENOMSG: return "No message of desired type";
            case ENODATA: return "No data available";
            case EOVERFLOW: return "Value too large for defined data type";
            case EMSGSIZE: return "Message too long";
            case ENOPROTOOPT: return "Protocol not available";
            case EOPNOTSUPP: return "Operation not supported";
            case EADDRINUSE: return "Address already in use";
            case EADDRNOTAVAIL: return "Cannot assign requested address";
            case ETIMEDOUT: return "Connection timed out";
            case EALREADY: return "Operation already in progress";
            case EINPROGRESS: return "Operation now in progress";
            case ECANCELED: return "Operation canceled";
            case EOTHER: return "Unspecified error";
            case ETOOSMALL: return "Provided buffer is too small";
            case EOPBADSTATE: return "Operation not permitted in current state";
            case EAVAIL: return "Error available";
            case EBADFLAGS: return "Flags not supported";
            case ENOEQ: return "Missing or unavailable event queue";
            case EDOMAIN: return "Invalid resource domain";
            case ENOCQ: return "Missing or unavailable completion queue";
            case ENOAV: return "Missing or unavailable address vector";
            default: return "Unspecified error";
        }
    }

    /**
     * The libfabric symbol of an error number.
     *
     * @param errno a positive or negative error number
     * @return e.g. {@code FI_EINVAL}; {@code FI_E<n>} for a number without a symbol
     */
    public static String name(final int errno)
    {
        switch (Math.abs(errno))
        {
            case SUCCESS: return "FI_SUCCESS";
            case EPERM: return "FI_EPERM";
            case ENOENT: return "FI_ENOENT";
            case EINTR: return "FI_EINTR";
            case EIO: return "FI_EIO";
            case E2BIG: return "FI_E2BIG";
            case EBADF: return "FI_EBADF";
            case EAGAIN: return "FI_EAGAIN";
            case ENOMEM: return "FI_ENOMEM";
            case EACCES: return "FI_EACCES";
            case EFAULT: return "FI_EFAULT";
            case EBUSY: return "FI_EBUSY";
            case EEXIST: return "FI_EEXIST";
            case ENODEV: return "FI_ENODEV";
            case EINVAL: return "FI_EINVAL";
            case EMFILE: return "FI_EMFILE";
            case ENOSPC: return "FI_ENOSPC";
            case ENOSYS: return "FI_ENOSYS";
            case ENOMSG: return "FI_ENOMSG";
            case ENODATA: return "FI_ENODATA";
            case EOVERFLOW: return "FI_EOVERFLOW";
            case EMSGSIZE: return "FI_EMSGSIZE";
            case ENOPROTOOPT: return "FI_ENOPROTOOPT";
            case EOPNOTSUPP: return "FI_EOPNOTSUPP";
            case EADDRINUSE: return "FI_EADDRINUSE";
            case EADDRNOTAVAIL: return "FI_EADDRNOTAVAIL";
            case ETIMEDOUT: return "FI_ETIMEDOUT";
            case EALREADY: return "FI_EALREADY";
            case EINPROGRESS: return "FI_EINPROGRESS";
            case ECANCELED: return "FI_ECANCELED";
            case EOTHER: return "FI_EOTHER";
            case ETOOSMALL: return "FI_ETOOSMALL";
            case EOPBADSTATE: return "FI_EOPBADSTATE";
            case EAVAIL: return "FI_EAVAIL";
            case EBADFLAGS: return "FI_EBADFLAGS";
            case ENOEQ: return "FI_ENOEQ";
            case EDOMAIN: return "FI_EDOMAIN";
            case ENOCQ: return "FI_ENOCQ";
            case ENOAV: return "FI_ENOAV";
            default: return "FI_E" + Math.abs(errno);
        }
    }
}
