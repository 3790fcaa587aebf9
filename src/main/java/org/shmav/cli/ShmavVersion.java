package org.shmav.cli;

import org.shmav.shm.AvFileChannel;
import org.shmav.shm.AvFileDescriptor;

import picocli.CommandLine.IVersionProvider;

/** {@code --version} of avrun and shmav: the jar's Implementation-Version and the shm layout version. */
public final class ShmavVersion implements IVersionProvider
{
    @Override
    public String[] getVersion()
    {
        final String version = ShmavVersion.class.getPackage().getImplementationVersion();
        return new String[] {
            "${COMMAND-NAME} (shmav " + (version == null ? "development build" : version) + ")",
            "AV file layout " + AvFileDescriptor.VERSION_MAJOR + "." + AvFileDescriptor.VERSION_MINOR,
            "Java " + Runtime.version(),
            "lock files: " + AvFileChannel.lockKind()};
    }
}
