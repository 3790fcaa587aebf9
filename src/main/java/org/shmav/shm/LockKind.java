package org.shmav.shm;

/**
 * Which record locks this JVM takes in lock files: open-file-description locks ({@link OfdLocks})
 * where JNA and the kernel allow them, else POSIX locks. Decided once per JVM, outside
 * {@link OfdLocks}, which cannot even load without JNA.
 */
final class LockKind
{
    /** Why lock files get POSIX locks in this JVM, or null when they get OFD locks. */
    private static final String OFD_UNAVAILABLE = ofdUnavailable();

    private LockKind()
    {
    }

    /** {@return whether lock files get OFD locks in this JVM} */
    static boolean ofd()
    {
        return OFD_UNAVAILABLE == null;
    }

    /** {@return the kind in words, for people: the OFD kind, or the POSIX fallback and why} */
    static String describe()
    {
        return OFD_UNAVAILABLE == null ? "open-file-description locks (F_OFD_SETLK)"
            : "POSIX record locks (F_SETLK; a close of the lock file anywhere in this JVM drops them): " +
                "OFD locks unavailable, " + OFD_UNAVAILABLE;
    }

    private static String ofdUnavailable()
    {
        try
        {
            return OfdLocks.UNAVAILABLE;
        }
        catch (final LinkageError e)
        {
            return "JNA missing from the class path (" + e + ")"; // OfdLocks itself cannot load
        }
    }
}
