package org.shmav;

/** {@link FormatsContractTest} on private AVs. */
class PrivateAvFormatsTest extends FormatsContractTest
{
    @Override
    protected AddressVector openAv(final Domain domain, final AvAttr.Builder attr)
    {
        return domain.openAv(attr.name(null).build());
    }
}
