package org.shmav;

/**
 * libfabric's error numbers ({@code rdma/fi_errno.h}), positive as libfabric defines them; a call that
 * fails in C with {@code -FI_EINVAL} throws a {@link FabricException} whose {@code errno()} is
 * {@link #EINVAL}.
 */
public final class FiErrno
{
    public static final int SUCCESS = 0;
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int E2BIG = 7;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ENOSPC = 28;
    public static final int ENOSYS = 38;
    public static final int ENOMSG = 42;
    public static final int ENODATA = 61;
    public static final int EOVERFLOW = 75;
    public static final int EMSGSIZE = 90;
    public static final int ENOPROTOOPT = 92;
    public static final int EOPNOTSUPP = 95;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ETIMEDOUT = 110;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int ECANCELED = 125;
    public static final int EOTHER = 256;
    public static final int ETOOSMALL = 257;
    public static final int EOPBADSTATE = 258;
    public static final int EAVAIL = 259;
    public static final int EBADFLAGS = 260;
    public static final int ENOEQ = 261;
    public static final int EDOMAIN = 262;
    public static final int ENOCQ = 263;
    public static final int ENOAV = 267;

    private FiErrno()
    {
    }

    /** {@code fi_strerror}: libfabric's text for a positive (or negative) error number. */
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

    /** The libfabric symbol of an error number, e.g. {@code FI_EINVAL}; {@code FI_E<n>} when unnamed. */
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
