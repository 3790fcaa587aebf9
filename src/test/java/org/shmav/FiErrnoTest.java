package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;

import org.junit.jupiter.api.Test;

/** Error numbers, fi_strerror texts and FabricException messages, as libfabric's fi_errno.h and fi_strerror give them. */
class FiErrnoTest
{
    @Test
    void shouldUseLibfabricNumbers()
    {
        final int[][] table = {
            {FiErrno.SUCCESS, 0}, {FiErrno.EPERM, 1}, {FiErrno.ENOENT, 2}, {FiErrno.EINTR, 4}, {FiErrno.EIO, 5},
            {FiErrno.E2BIG, 7}, {FiErrno.EBADF, 9}, {FiErrno.EAGAIN, 11}, {FiErrno.ENOMEM, 12}, {FiErrno.EACCES, 13},
            {FiErrno.EFAULT, 14}, {FiErrno.EBUSY, 16}, {FiErrno.ENODEV, 19}, {FiErrno.EINVAL, 22}, {FiErrno.EMFILE, 24},
            {FiErrno.ENOSPC, 28}, {FiErrno.ENOSYS, 38}, {FiErrno.ENOMSG, 42}, {FiErrno.ENODATA, 61},
            {FiErrno.EOVERFLOW, 75}, {FiErrno.EMSGSIZE, 90}, {FiErrno.ENOPROTOOPT, 92}, {FiErrno.EOPNOTSUPP, 95},
            {FiErrno.EADDRINUSE, 98}, {FiErrno.EADDRNOTAVAIL, 99}, {FiErrno.ETIMEDOUT, 110}, {FiErrno.EALREADY, 114},
            {FiErrno.EINPROGRESS, 115}, {FiErrno.ECANCELED, 125}, {FiErrno.EOTHER, 256}, {FiErrno.ETOOSMALL, 257},
            {FiErrno.EOPBADSTATE, 258}, {FiErrno.EAVAIL, 259}, {FiErrno.EBADFLAGS, 260}, {FiErrno.ENOEQ, 261},
            {FiErrno.EDOMAIN, 262}, {FiErrno.ENOCQ, 263}, {FiErrno.ENOAV, 267},
        };
        for (final int[] row : table)
        {
            assertEquals(row[1], row[0]);
        }
    }

    @Test
    void shouldGiveLibfabricStrerrorTexts()
    {
        final Object[][] table = {
            {0, "Success"}, {1, "Operation not permitted"}, {2, "No such file or directory"},
            {11, "Resource temporarily unavailable"}, {12, "Cannot allocate memory"}, {13, "Permission denied"},
            {16, "Device or resource busy"}, {19, "No such device"}, {22, "Invalid argument"},
            {28, "No space left on device"}, {38, "Function not implemented"}, {61, "No data available"},
            {95, "Operation not supported"}, {98, "Address already in use"}, {99, "Cannot assign requested address"},
            {114, "Operation already in progress"}, {125, "Operation canceled"}, {256, "Unspecified error"},
            {257, "Provided buffer is too small"}, {258, "Operation not permitted in current state"},
            {259, "Error available"}, {260, "Flags not supported"}, {261, "Missing or unavailable event queue"},
            {267, "Missing or unavailable address vector"},
        };
        for (final Object[] row : table)
        {
            final int errno = (Integer)row[0];
            assertEquals(row[1], FiErrno.strerror(errno), "strerror(" + errno + ")");
            assertEquals(row[1], FiErrno.strerror(-errno), "strerror(-" + errno + ")");
        }
        assertEquals("Unspecified error", FiErrno.strerror(270), "FI_ENOMR is unknown to 1.17's fi_strerror");
        assertEquals("Unspecified error", FiErrno.strerror(9999));
    }

    @Test
    void shouldNameErrnosAsLibfabricSymbols()
    {
        assertEquals("FI_EINVAL", FiErrno.name(FiErrno.EINVAL));
        assertEquals("FI_EINVAL", FiErrno.name(-FiErrno.EINVAL));
        assertEquals("FI_EADDRNOTAVAIL", FiErrno.name(99));
        assertEquals("FI_EBADFLAGS", FiErrno.name(260));
        assertEquals("FI_ENOEQ", FiErrno.name(261));
        assertEquals("FI_E9999", FiErrno.name(9999));
    }

    @Test
    void shouldFormatFabricExceptionMessages()
    {
        final FabricException e = new FabricException("fi_av_open", FiErrno.ENOENT, "named AV 'job7' does not exist in /dev/shm");
        assertEquals("fi_av_open: FI_ENOENT (No such file or directory): named AV 'job7' does not exist in /dev/shm", e.getMessage());
        assertEquals(FiErrno.ENOENT, e.errno());
        assertTrue(e instanceof RuntimeException, "no checked exception in the API");

        final FabricException negative = new FabricException("fi_av_insert", -FiErrno.EBADFLAGS, "flags 0x200");
        assertEquals(FiErrno.EBADFLAGS, negative.errno(), "errno() is always positive");
        assertEquals("fi_av_insert: FI_EBADFLAGS (Flags not supported): flags 0x200", negative.getMessage());

        final IOException cause = new IOException("disk");
        final FabricException caused = new FabricException("fi_av_open", FiErrno.EIO, "I/O error", cause);
        assertSame(cause, caused.getCause());
        assertEquals(FiErrno.EIO, caused.errno());
    }

    @Test
    void shouldReportLibraryErrorsInTheSameFormat()
    {
        try (Domain d = Domain.open(DomainAttr.builder().build()); AddressVector av = d.openAv(AvAttr.builder().build()))
        {
            final FabricException e = AvTestSupport.assertErrno(FiErrno.EINVAL, () -> av.lookup(3, java.nio.ByteBuffer.allocate(16)));
            assertTrue(e.getMessage().startsWith("fi_av_lookup: FI_EINVAL (Invalid argument): "), e.getMessage());
            final FabricException flags = AvTestSupport.assertErrno(FiErrno.EBADFLAGS,
                () -> av.insert(AvTestSupport.in4("10.0.0.1", 1), 1, null, Fi.WRITE, null));
            assertTrue(flags.getMessage().startsWith("fi_av_insert: FI_EBADFLAGS (Flags not supported): "), flags.getMessage());
        }
    }
}
