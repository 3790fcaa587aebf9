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
    private final boolean avAuthKey;
    private final int authKeySize;
    private final int maxGroupId;
    private final AvType avType;
    private final Path shmDirectory;

    private DomainAttr(final Builder b)
    {
        this.addrFormat = b.addrFormat;
        this.avAuthKey = b.avAuthKey;
        this.authKeySize = b.authKeySize;
        this.maxGroupId = b.maxGroupId;
        this.avType = b.avType;
        this.shmDirectory = b.shmDirectory != null ? b.shmDirectory : defaultShmDirectory();
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** The directory used when none is set on the builder. */
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

    /** Format of every address inserted into this domain's AVs. */
    public AddrFormat addrFormat()
    {
        return addrFormat;
    }

    /** {@code FI_AV_AUTH_KEY}: AVs of this domain hold authorization keys. */
    public boolean avAuthKey()
    {
        return avAuthKey;
    }

    /** Size in bytes of every authorization key ({@code auth_key_size}). */
    public int authKeySize()
    {
        return authKeySize;
    }

    /** Largest group id accepted in fi_addr values ({@code max_group_id}); 0 disables groups. */
    public int maxGroupId()
    {
        return maxGroupId;
    }

    /** The domain's {@code av_type}: {@link AvType#UNSPEC} accepts either; otherwise AVs must match. */
    public AvType avType()
    {
        return avType;
    }

    /** Directory holding named AV files. */
    public Path shmDirectory()
    {
        return shmDirectory;
    }

    @Override
    public String toString()
    {
        return "DomainAttr{addrFormat=" + addrFormat.fiName() + ", avAuthKey=" + avAuthKey +
            ", authKeySize=" + authKeySize + ", maxGroupId=" + maxGroupId + ", avType=" + avType.fiName() +
            ", shmDirectory=" + shmDirectory + '}';
    }

    /** Builder for {@link DomainAttr}; defaults: SOCKADDR_IN, no auth keys, av_type UNSPEC. */
    public static final class Builder
    {
        private AddrFormat addrFormat = AddrFormat.SOCKADDR_IN;
        private boolean avAuthKey;
        private int authKeySize = 8;
        private int maxGroupId;
        private AvType avType = AvType.UNSPEC;
        private Path shmDirectory;

        private Builder()
        {
        }

        public Builder addrFormat(final AddrFormat addrFormat)
        {
            this.addrFormat = Objects.requireNonNull(addrFormat, "addrFormat");
            return this;
        }

        public Builder avAuthKey(final boolean avAuthKey)
        {
            this.avAuthKey = avAuthKey;
            return this;
        }

        public Builder authKeySize(final int authKeySize)
        {
            this.authKeySize = authKeySize;
            return this;
        }

        public Builder maxGroupId(final int maxGroupId)
        {
            this.maxGroupId = maxGroupId;
            return this;
        }

        public Builder avType(final AvType avType)
        {
            this.avType = Objects.requireNonNull(avType, "avType");
            return this;
        }

        public Builder shmDirectory(final Path shmDirectory)
        {
            this.shmDirectory = shmDirectory;
            return this;
        }

        public DomainAttr build()
        {
            return new DomainAttr(this);
        }
    }
}
