package org.shmav.cli;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import org.shmav.AvType;
import org.shmav.shm.SlotDescriptor;
import org.shmav.slots.Region;

/**
 * The entries some fi_addr values name now, read through a tool's read-only mapping of the AV file
 * (detached again): what {@code insert} and {@code remove} need to say how many references an entry
 * holds, which the API does not tell.
 */
final class EntriesAt
{
    private EntriesAt()
    {
    }

    /** For each of {@code fiAddrs}, the entry it names in {@code file} now, or null where it names none. */
    static AvSnapshot.Entry[] read(final Path file, final long[] fiAddrs)
    {
        final AvSnapshot.Entry[] entries = new AvSnapshot.Entry[fiAddrs.length];
        final Region region = AvDirectory.openReadOnly(file);
        try
        {
            final ByteBuffer addr = ByteBuffer.allocate(region.layout().addrLen());
            final long base = region.layout().avType() == AvType.MAP ? region.storedMapBase() : 0;
            for (int i = 0; i < fiAddrs.length; i++)
            {
                final long index = fiAddrs[i] - base;
                if (index < 0 || index >= region.layout().capacity())
                {
                    continue;
                }
                final long word = region.table().stateWord(index);
                if (SlotDescriptor.isEntry(word)) // committed or VALID, as every reader and the count take it
                {
                    entries[i] = AvSnapshot.entry(region, index, word, addr);
                }
            }
            return entries;
        }
        finally
        {
            region.detach();
        }
    }

    /** An fi_addr as {@code show} prints it: hexadecimal for a MAP AV, whose values are a base plus an index. */
    static String text(final AvType type, final long fiAddr)
    {
        return type == AvType.MAP ? String.format("0x%x", fiAddr) : Long.toString(fiAddr);
    }
}
