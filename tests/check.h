/* check.h — carom's in-house test runner: no fork, so ASan and gdb behave.
 *
 * A test program defines test functions, lists them in main with RUN(fn),
 * and ends with CHECK_SUMMARY(), which prints "N passed, N failed" (counted
 * per test function) and returns the exit status. CHECK* macros record a
 * failure with file:line and the values, and the test goes on. Each line
 * gives the seconds the test function took (wall clock), to see where a
 * slow pass spends its time.
 */
#ifndef CAROM_CHECK_H
#define CAROM_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct check_state {
    int failures_in_test;
    int passed, failed;
} check_state;

static check_state check_global_state; /* test programs only; the library has no globals */

/* 1 under CAROM_TEST_QUICK=1, scripts/test.sh's sanitizer pass: the long
 * runs and scans are shortened there (the optimised pass runs them whole). */
static inline int check_quick(void)
{
    const char *q = getenv("CAROM_TEST_QUICK");
    return q && q[0] == '1';
}

static inline double check_seconds_now(void)
{
    struct timespec now;
    timespec_get(&now, TIME_UTC); /* C11; only reported, never compared */
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

#define CHECK(cond)                                                                           \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            check_global_state.failures_in_test++;                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);          \
        }                                                                                     \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                  \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            check_global_state.failures_in_test++;                                            \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
        }                                                                                     \
    } while (0)

/* |a - b| <= tol */
#define CHECK_NEAR(a, b, tol)                                                                 \
    do {                                                                                      \
        double check_a_ = (double)(a), check_b_ = (double)(b), check_t_ = (double)(tol);      \
        if (!(fabs(check_a_ - check_b_) <= check_t_)) {                                       \
            check_global_state.failures_in_test++;                                            \
            fprintf(stderr, "%s:%d: check failed: %s = %.17g, %s = %.17g, tolerance %.3g\n",  \
                    __FILE__, __LINE__, #a, check_a_, #b, check_b_, check_t_);                \
        }                                                                                     \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                    \
    do {                                                                                      \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                       \
        if (check_a_ != check_b_) {                                                           \
            check_global_state.failures_in_test++;                                            \
            fprintf(stderr, "%s:%d: check failed: %s = %lld, expected %s = %lld\n", __FILE__, \
                    __LINE__, #a, check_a_, #b, check_b_);                                    \
        }                                                                                     \
    } while (0)

#define RUN(test_function)                                                                    \
    do {                                                                                      \
        double check_start_ = check_seconds_now();                                            \
        check_global_state.failures_in_test = 0;                                              \
        test_function();                                                                      \
        double check_took_ = check_seconds_now() - check_start_;                              \
        if (check_global_state.failures_in_test == 0) {                                       \
            check_global_state.passed++;                                                      \
            printf("pass  %s (%.2f s)\n", #test_function, check_took_);                       \
        } else {                                                                              \
            check_global_state.failed++;                                                      \
            printf("FAIL  %s (%d checks, %.2f s)\n", #test_function,                          \
                   check_global_state.failures_in_test, check_took_);                         \
        }                                                                                     \
        fflush(stdout);                                                                       \
    } while (0)

#define CHECK_SUMMARY()                                                                       \
    (printf("%d passed, %d failed\n", check_global_state.passed, check_global_state.failed),  \
     check_global_state.failed == 0 && check_global_state.passed > 0 ? 0 : 1)

#endif /* CAROM_CHECK_H */
