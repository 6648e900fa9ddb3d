/* checkasm: the driver (checkasm.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "omcti.h"
#include "src/cpu.h"
#include "tests/checkasm/checkasm.h"

#define MAX_TESTED 256

static struct {
    uint64_t rng;
    int bench;
    int self_check;
    int level;               /* the CPU level being run                 */
    void *tested[MAX_TESTED];/* variants already tested                 */
    int ntested;
    char name[96];           /* the function under test                 */
    int fails;               /* its mismatches                          */
    int failed_funcs, passed_funcs;
    double ref_ns;
} st;

uint32_t checkasm_rand(void)
{
    st.rng ^= st.rng << 13;
    st.rng ^= st.rng >> 7;
    st.rng ^= st.rng << 17;
    return (uint32_t)(st.rng >> 11);
}

void checkasm_fill(uint8_t *p, size_t n, int mode)
{
    for (size_t i = 0; i < n; i++) {
        const uint32_t r = checkasm_rand();
        p[i] = mode == 0 ? (uint8_t)r : mode == 1 ? ((r & 1) ? 255 : 0)
                                                  : (uint8_t)((i * 5 / 16 + (r & 15)) & 255);
    }
}

void *checkasm_check_func(void *func, void *ref, const char *fmt, ...)
{
    if (func == ref)
        return NULL;
    for (int i = 0; i < st.ntested; i++)
        if (st.tested[i] == func)
            return NULL;
    if (st.ntested < MAX_TESTED)
        st.tested[st.ntested++] = func;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.name, sizeof st.name, fmt, ap);
    va_end(ap);
    st.fails = 0;
    return ref;
}

void checkasm_c_table(void (*init)(void *t), void *t)
{
    omcti_set_cpu_flags_mask(0);
    init(t);
    omcti_set_cpu_flags_mask(cpu_level_flags(st.level));
}

void checkasm_fail(const char *fmt, ...)
{
    if (st.fails++ < 3) {
        va_list ap;
        va_start(ap, fmt);
        printf("  %s_%s: ", st.name, cpu_level_name(st.level));
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
    }
}

void checkasm_report(int cases)
{
    printf("%s %-28s %-6s %6d random cases, %d mismatches\n", st.fails ? "FAIL" : "PASS", st.name,
           cpu_level_name(st.level), cases, st.fails);
    if (st.fails)
        st.failed_funcs++;
    else
        st.passed_funcs++;
}

int checkasm_benching(void)
{
    return st.bench;
}

int checkasm_self_check(void)
{
    return st.self_check;
}

double checkasm_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void checkasm_bench_result_as(const char *label, int ref, double seconds, int calls)
{
    const double ns = seconds * 1e9 / calls;
    if (ref) {
        st.ref_ns = ns;
        return;
    }
    printf("  bench %-28s %-6s %10.1f ns/call (C %10.1f ns, %.2fx)\n", label ? label : st.name,
           cpu_level_name(st.level), ns, st.ref_ns, st.ref_ns / ns);
}

void checkasm_bench_result(int ref, double seconds, int calls)
{
    checkasm_bench_result_as(NULL, ref, seconds, calls);
}

int main(int argc, char **argv)
{
    uint64_t seed = 0x243f6a8885a308d3ull;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--bench"))
            st.bench = 1;
        else if (!strcmp(argv[i], "--self-check"))
            st.self_check = 1;
        else if (!strcmp(argv[i], "--test") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: checkasm [--seed N] [--bench] [--test sad|pick|mc] [--self-check]\n");
            return 2;
        }
    }
    st.rng = seed ? seed : 1;
    static const struct {
        const char *name;
        void (*run)(void);
    } groups[] = {
        { "sad", checkasm_check_sad },
        { "pick", checkasm_check_pick },
        { "mc", checkasm_check_mc },
    };
    const int cpu = cpu_level_of(cpu_detect_flags());
    printf("checkasm: seed %llu, cpu level %s\n", (unsigned long long)seed, cpu_level_name(cpu));
    /* the self-check's broken variant is tested at the C level */
    for (int level = CPU_LEVEL_C; level <= cpu; level++) {
        st.level = level;
        omcti_set_cpu_flags_mask(cpu_level_flags(level));
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
            if (!only || !strcmp(only, groups[g].name))
                groups[g].run();
    }
    for (int level = cpu + 1; level <= CPU_LEVEL_MAX; level++)
        printf("SKIP level %s (not supported by this CPU)\n", cpu_level_name(level));
    omcti_set_cpu_flags_mask(~0u);
    printf("checkasm: %d functions passed, %d failed (seed %llu)\n", st.passed_funcs,
           st.failed_funcs, (unsigned long long)seed);
    return st.failed_funcs ? 1 : 0;
}
