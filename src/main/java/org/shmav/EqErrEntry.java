package org.shmav;

/** One {@code fi_eq_err_entry}: for a failed FI_EVENT insert, data is the failed address's index and err > 0. */
public record EqErrEntry(Object fid, Object context, long data, int err)
{
}
