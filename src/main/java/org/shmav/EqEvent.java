package org.shmav;

/** One {@code fi_eq_entry}: {@code event} is {@link #AV_COMPLETE} for a finished FI_EVENT insert. */
public record EqEvent(int event, Object fid, Object context, long data)
{
    /** {@code FI_AV_COMPLETE}: data holds the number of addresses inserted. */
    public static final int AV_COMPLETE = 5;
}
