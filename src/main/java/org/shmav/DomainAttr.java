package org.shmav;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The domain attributes an AV depends on ({@code struct fi_domain_attr} and the fi_info address
 * format). Built with {@link #builder()}.
 *
 * <p>The directory of named AVs is, in order: {@link Builder#shmDirectory}, the system property
 * {@value #SHM_DIR_PROPERTY}, the environment variable {@value #SHM_DIR_ENV}, {@code /dev/shm}.
 */
public final class DomainAttr
{
    /** System property naming the directory of named AVs. */
    public static final String SHM_DIR_PROPERTY = "shmav.dir";
    /** Environment variable naming the directory of named AVs (set by the launcher for its ranks). */
    public static final String SHM_DIR_ENV = "SHMAV_DIR";
    /** Where named AVs live unless configured otherwise. */
    public static final Path DEFAULT_SHM_DIRECTORY = Path.of("/dev/shm");

    private final AddrFormat addrFormat;
    private final int addrLen;
    private final boolean varyingAddrLen;
    private final boolean avAuthKey;
    private final int authKeySize;
    private final int maxGroupId;
    private final AvType avType;
    private final Path shmDirectory;
    /** How many of addrLen and maxAddrLen the builder set ({@link Domain#open} accepts one, on FORMAT_UNSPEC). */
    private final int lengthsSet;

    private DomainAttr(final Builder b)
    {
        this.addrFormat = b.addrFormat;
        this.varyingAddrLen = b.maxAddrLen != 0;
        this.addrLen = b.maxAddrLen != 0 ? b.maxAddrLen : b.addrLen != 0 ? b.addrLen : b.addrFormat.addrlen();
        this.lengthsSet = (b.addrLen != 0 ? 1 : 0) + (b.maxAddrLen != 0 ? 1 : 0);
        this.avAuthKey = b.avAuthKey;
        this.authKeySize = b.authKeySize;
        this.maxGroupId = b.maxGroupId;
        this.avType = b.avType;
        this.shmDirectory = b.shmDirectory != null ? b.shmDirectory : defaultShmDirectory();
    }

    /**
     * A builder with the defaults: FI_SOCKADDR_IN, no auth keys, max group id 0, av_type UNSPEC,
     * the {@link #defaultShmDirectory()}.
     *
     * @return a new builder
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * The directory used when none is set on the builder: the system property
     * {@value #SHM_DIR_PROPERTY}, else the environment variable {@value #SHM_DIR_ENV}, else {@code /dev/shm}.
     *
     * @return the directory named AVs live in by default
     */
    public static Path defaultShmDirectory()
    {
        final String prop = System.getProperty(SHM_DIR_PROPERTY);
        if (prop != null && !prop.isEmpty())
        {
            return Path.of(prop);
        }
        final String env = System.getenv(SHM_DIR_ENV);
        if (env != null && !env.isEmpty())
        {
            return Path.of(env);
        }
        return DEFAULT_SHM_DIRECTORY;
    }

    /**
     * Format of every address inserted into this domain's AVs ({@code fi_info.addr_format}).
     *
     * @return the address format
     */
    public AddrFormat addrFormat()
    {
        return addrFormat;
    }

    /**
     * Bytes of one address ({@code fi_info.dest_addrlen}): the format's length, the length set with
     * {@link Builder#addrLen} for {@link AddrFormat#FORMAT_UNSPEC}, or the most bytes an address may have
     * when lengths vary ({@link Builder#maxAddrLen}, and {@value AddrFormat#MAX_STR_LEN} for FI_ADDR_STR).
     *
     * @return the length of one address, or the longest one
     */
    public int addrLen()
    {
        return addrLen;
    }

    /**
     * Whether addresses of this domain have lengths of their own up to {@link #addrLen()}: FORMAT_UNSPEC with
     * {@link Builder#maxAddrLen}. Lookup then reports each address's own length, as for FI_ADDR_STR.
     *
     * @return true for opaque addresses of varying length
     */
    public boolean varyingAddrLen()
    {
        return varyingAddrLen;
    }

    /** The address lengths the builder was given, for {@link Domain#open}'s checks: 0, 1 or 2. */
    int lengthsSet()
    {
        return lengthsSet;
    }

    /**
     * {@code FI_AV_AUTH_KEY}: AVs of this domain hold authorization keys.
     *
     * @return true when auth keys are enabled
     */
    public boolean avAuthKey()
    {
        return avAuthKey;
    }

    /**
     * Size in bytes of every authorization key ({@code auth_key_size}).
     *
     * @return the key size
     */
    public int authKeySize()
    {
        return authKeySize;
    }

    /**
     * Largest group id accepted in fi_addr values ({@code max_group_id}); 0 disables groups.
     *
     * @return the largest group id
     */
    public int maxGroupId()
    {
        return maxGroupId;
    }

    /**
     * The domain's {@code av_type}: {@link AvType#UNSPEC} accepts either; otherwise AVs must match.
     *
     * @return the domain's AV type
     */
    public AvType avType()
    {
        return avType;
    }

    /**
     * Directory holding named AV files.
     *
     * @return the directory, resolved from the defaults when none was set
     */
    public Path shmDirectory()
    {
        return shmDirectory;
    }

    @Override
    public String toString()
    {
        return "DomainAttr{addrFormat=" + addrFormat.fiName() + ", addrLen=" + addrLen +
            (varyingAddrLen ? " (varying)" : "") + ", avAuthKey=" + avAuthKey +
            ", authKeySize=" + authKeySize + ", maxGroupId=" + maxGroupId + ", avType=" + avType.fiName() +
            ", shmDirectory=" + shmDirectory + '}';
    }

    /** Builder for {@link DomainAttr}; defaults: SOCKADDR_IN, no auth keys, av_type UNSPEC. */
    public static final class Builder
    {
        private AddrFormat addrFormat = AddrFormat.SOCKADDR_IN;
        private int addrLen;
        private int maxAddrLen;
        private boolean avAuthKey;
        private int authKeySize = 8;
        private int maxGroupId;
        private AvType avType = AvType.UNSPEC;
        private Path shmDirectory;

        private Builder()
        {
        }

        /**
         * Sets {@code addr_format}: {@link AddrFormat#SOCKADDR_IN} (default) or any other format whose
         * {@link AddrFormat#supported()} is true; {@link Domain#open} refuses the others with FI_EINVAL.
         * {@link AddrFormat#FORMAT_UNSPEC} also needs {@link #addrLen} or {@link #maxAddrLen}.
         *
         * @param addrFormat the format of every address of the domain's AVs; not null
         * @return this builder
         * @throws NullPointerException for null
         */
        public Builder addrFormat(final AddrFormat addrFormat)
        {
            this.addrFormat = Objects.requireNonNull(addrFormat, "addrFormat");
            return this;
        }

        /**
         * Sets the length of every opaque address of a {@link AddrFormat#FORMAT_UNSPEC} domain
         * ({@code fi_info.dest_addrlen}): 1 to {@value AddrFormat#MAX_OPAQUE_LEN}. Every other format has its
         * own length, and {@link Domain#open} refuses this with FI_EINVAL there; so it does with
         * {@link #maxAddrLen} too.
         *
         * @param addrLen bytes of every address
         * @return this builder
         */
        public Builder addrLen(final int addrLen)
        {
            this.addrLen = addrLen;
            return this;
        }

        /**
         * Makes a {@link AddrFormat#FORMAT_UNSPEC} domain's addresses opaque and of varying length, each of 1 to
         * {@code maxAddrLen} bytes (1 to {@value AddrFormat#MAX_OPAQUE_LEN}), as UCX worker addresses are:
         * an address is inserted with its own length and lookup reports that length. Instead of {@link #addrLen}.
         *
         * @param maxAddrLen the most bytes an address may have
         * @return this builder
         */
        public Builder maxAddrLen(final int maxAddrLen)
        {
            this.maxAddrLen = maxAddrLen;
            return this;
        }

        /**
         * Sets {@code FI_AV_AUTH_KEY}: the domain's AVs store authorization keys
         * ({@link AddressVector#insertAuthKey}). Default false.
         *
         * @param avAuthKey true to enable auth keys
         * @return this builder
         */
        public Builder avAuthKey(final boolean avAuthKey)
        {
            this.avAuthKey = avAuthKey;
            return this;
        }

        /**
         * Sets {@code auth_key_size}, the size of every key; 1 to 4096 with avAuthKey (else FI_EINVAL at
         * {@link Domain#open}). Default 8.
         *
         * @param authKeySize bytes per key
         * @return this builder
         */
        public Builder authKeySize(final int authKeySize)
        {
            this.authKeySize = authKeySize;
            return this;
        }

        /**
         * Sets {@code max_group_id}: fi_addr values may carry a group id up to this in bits 32..63
         * ({@link Fi#groupAddr}). Default 0 (no groups); negative is FI_EINVAL at {@link Domain#open}.
         *
         * @param maxGroupId the largest group id
         * @return this builder
         */
        public Builder maxGroupId(final int maxGroupId)
        {
            this.maxGroupId = maxGroupId;
            return this;
        }

        /**
         * Sets the domain's {@code av_type}: AVs opened on it must have this type, unless it is
         * {@link AvType#UNSPEC} (default).
         *
         * @param avType the required AV type; not null
         * @return this builder
         * @throws NullPointerException for null
         */
        public Builder avType(final AvType avType)
        {
            this.avType = Objects.requireNonNull(avType, "avType");
            return this;
        }

        /**
         * Sets the directory of named AVs (beyond libfabric). Default: {@link #defaultShmDirectory()}.
         * It must exist when a named AV is opened (FI_ENOENT otherwise).
         *
         * @param shmDirectory the directory, or null for the default
         * @return this builder
         */
        public Builder shmDirectory(final Path shmDirectory)
        {
            this.shmDirectory = shmDirectory;
            return this;
        }

        /**
         * The attributes; they are checked by {@link Domain#open}.
         *
         * @return the attributes
         */
        public DomainAttr build()
        {
            return new DomainAttr(this);
        }
    }
}
