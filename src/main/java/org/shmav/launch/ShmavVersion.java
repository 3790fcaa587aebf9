package org.shmav.launch;

import picocli.CommandLine.IVersionProvider;
import org.shmav.shm.AvFileDescriptor;

/** {@code --version} of avrun and shmav: the jar's Implementation-Version and the shm layout version. */
public final class ShmavVersion implements IVersionProvider
{
    @Override
    public String[] getVersion()
    {
        final String version = ShmavVersion.class.getPackage().getImplementationVersion();
        return new String[] {
            "${COMMAND-NAME} (shmav " + (version == null ? "development build" : version) + ")",
            "AV file layout " + org.shmav.shm.AvFileDescriptor.VERSION_MAJOR + "." +
                org.shmav.shm.AvFileDescriptor.VERSION_MINOR,
            "Java " + Runtime.version(),
            "lock files: " + org.shmav.shm.AvFileChannel.lockKind()};
    }
}
