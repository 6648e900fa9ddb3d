/* checkasm in dav1d's manner: one program that runs every function of the
 * DSP tables (src/motion/sad.h, filters/mc_dsp.h) at every CPU level the
 * machine has, through the CPU flags mask (omcti_set_cpu_flags_mask()),
 * against the C reference on random data.
 *
 *   checkasm [--seed N] [--bench] [--test sad|pick|mc] [--self-check]
 *
 * --self-check replaces one variant by a broken one (one wrong cost) and
 * must fail: the checker itself can fail.
 *
 * A test initialises its table at the current level and asks, for each
 * entry, checkasm_check_func(): it returns the C reference when the entry
 * is a variant not yet tested (so each variant runs once, at the lowest
 * level that selects it), NULL otherwise. The test then calls both on the
 * same random inputs and reports a mismatch with checkasm_fail(). With
 * --bench, checkasm_bench() times the reference and the variant. */
#ifndef OMCTI_TESTS_CHECKASM_H
#define OMCTI_TESTS_CHECKASM_H

#include <stddef.h>
#include <stdint.h>

/* Random numbers of the run (--seed): the same seed gives the same data. */
uint32_t checkasm_rand(void);
static inline int checkasm_rnd(int n) { return (int)(checkasm_rand() % (uint32_t)n); }

/* Fills n bytes: mode 0 uniform noise, 1 extremes 0/255 (the largest sums
 * and filter overshoots), 2 a smooth ramp with small noise. */
void checkasm_fill(uint8_t *p, size_t n, int mode);

/* The C reference of `func` named name (printf format) when func is a
 * variant to test at this level, else NULL. */
void *checkasm_check_func(void *func, void *ref, const char *name, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Fills table t with init at the C level (every CPU flag off), then
 * restores the mask of the level being run. */
void checkasm_c_table(void (*init)(void *t), void *t);

/* Records a mismatch of the function under test (one line, with why). */
void checkasm_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Closes the function under test: PASS/FAIL line with the case count. */
void checkasm_report(int cases);

/* 1 when --bench: the test then calls checkasm_bench_time() around calls
 * of the reference (ref = 1) and of the variant. */
int checkasm_benching(void);
int checkasm_self_check(void);
double checkasm_now(void);
void checkasm_bench_result(int ref, double seconds, int calls);
/* The same under a label of its own (one function benched at several sizes). */
void checkasm_bench_result_as(const char *label, int ref, double seconds, int calls);

/* The test groups. */
void checkasm_check_sad(void);
void checkasm_check_pick(void);
void checkasm_check_mc(void);

#endif
