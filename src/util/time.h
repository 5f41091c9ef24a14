/*
 * Clocks for the whole of czk (include-private, header-only): monotonic
 * time for durations and timelines, process CPU time for benchmarks, and
 * the CLOCK_REALTIME deadline pthread_cond_timedwait takes (the condition
 * variables are made with the default clock).
 */
#ifndef CZK_UTIL_TIME_H
#define CZK_UTIL_TIME_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Monotonic nanoseconds (CLOCK_MONOTONIC; only differences mean anything). */
static inline uint64_t czk_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Monotonic milliseconds. */
static inline uint64_t czk_now_ms(void) {
    return czk_now_ns() / 1000000u;
}

/* Monotonic seconds. */
static inline double czk_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of this process, all threads (CLOCK_PROCESS_CPUTIME_ID). */
static inline double czk_cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The CLOCK_REALTIME time ms milliseconds from now: a pthread_cond_timedwait deadline. */
static inline struct timespec czk_deadline_ms(uint64_t ms) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    return ts;
}

/* Waits on cv (mu held) until signalled or ms milliseconds passed; pthread_cond_timedwait's
 * result (ETIMEDOUT when the time passed). */
static inline int czk_timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t ms) {
    struct timespec ts = czk_deadline_ms(ms);
    return pthread_cond_timedwait(cv, mu, &ts);
}

#endif
