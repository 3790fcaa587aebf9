/*
 * Timing helpers shared by the C harnesses of scripts/bench-compare (fabric_av_bench.c, memory_limits.c):
 * a monotonic clock in nanoseconds, the thread's CPU time, and the median of a run's samples, as the Java side reports.
 */
#ifndef SHMAV_BENCH_UTIL_H
#define SHMAV_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* CPU time of the calling thread in nanoseconds: what a loop cost, without the time other processes
 * of a loaded machine ran instead of it. */
static inline double thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/** The median of v[0 .. n) (sorted in place); 0 for no samples. */
static inline double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

#endif
