package org.shmav;

import org.junit.jupiter.api.BeforeEach;

/** The AV set contract on private AVs (no name). */
class PrivateAvSetTest extends AvSetContractTest
{
    private Domain domain;

    @BeforeEach
    void openDomain()
    {
        domain = closeAfter(Domain.open(DomainAttr.builder().build()));
    }

    @Override
    protected AddressVector openAv(final AvAttr.Builder attr)
    {
        return closeAfter(domain.openAv(attr.name(null).build()));
    }
}
