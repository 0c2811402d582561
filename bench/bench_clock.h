/* bench_clock.h - what the benchmark programs time with and how they sort
 * their samples. Header-only: each .c file of bench/ is a program of its own.
 */
#ifndef CROWD_BENCH_CLOCK_H
#define CROWD_BENCH_CLOCK_H

#include <time.h>

/* Thread CPU time, seconds: on a shared machine a run that gets
 * descheduled would otherwise count another process's time slice. */
static inline double bench_thread_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort's comparison of doubles, ascending. */
static inline int bench_compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

#endif
