package org.shmav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.shmav.AvTestSupport.assertErrno;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Errors of the API that a newcomer meets first, each saying what to do next: another address
 * format, a wait that timed out (in human units), a count past what a named AV can hold (stated the
 * way {@code shmav create} states it).
 */
class NewcomerAnswersTest
{
    @RegisterExtension
    final ShmDomain shm = new ShmDomain("shmav-newcomer-");

    @Test
    void shouldSayHowToOpenAnAvOfAnotherAddressFormat()
    {
        try (AddressVector av = shm.domain().openAv(AvAttr.builder().name("fmt").count(4).build());
             Domain strings = Domain.open(DomainAttr.builder().addrFormat(AddrFormat.ADDR_STR).shmDirectory(shm.dir()).build()))
        {
            final FabricException e = assertErrno(FiErrno.EINVAL, () -> strings.openAv(AvAttr.builder().name("fmt").build()));
            assertEquals("fi_av_open: FI_EINVAL (Invalid argument): named AV 'fmt' holds FI_SOCKADDR_IN addresses, and " +
                "this domain's are FI_ADDR_STR (caller=FI_ADDR_STR file=FI_SOCKADDR_IN): open it from a domain of " +
                "DomainAttr.builder().addrFormat(AddrFormat.SOCKADDR_IN), or give this AV another name", e.getMessage());
        }
    }

    @Test
    void shouldStateAnAwaitAvTimeoutInSecondsAndWhatToDo()
    {
        final FabricException e = assertErrno(FiErrno.ETIMEDOUT, () -> shm.domain().awaitAv(
            AvAttr.builder().name("never").flags(Fi.READ).build(), Duration.ofMillis(1500)));
        assertEquals("fi_av_open: FI_ETIMEDOUT (Connection timed out): named AV 'never' was not created in " + shm.dir() +
            " within 1.5 s: start the process that creates it, or wait longer", e.getMessage());
    }

    @Test
    void shouldStateTheCountLimitOfANamedAvAsShmavCreateDoes()
    {
        final FabricException e = assertErrno(FiErrno.EINVAL, () -> shm.domain().openAv(
            AvAttr.builder().name("huge").count(999_999_999).build()));
        assertEquals("fi_av_open: FI_EINVAL (Invalid argument): count=999999999 needs over a 27917357056-byte file, more " +
            "than the 2147483647 bytes a named AV's file may have: at most 16777216 entries of FI_SOCKADDR_IN; use a " +
            "count up to that", e.getMessage());
    }
}
