/* CPU feature detection and the process-wide feature mask (cpu.h). */
#include <stdatomic.h>

#include "src/cpu.h"

/* The one process-wide setting, as dav1d's dav1d_set_cpu_flags_mask():
 * which SIMD variant computes a value never changes the value (every
 * variant is bit-exact with the C reference, tests/checkasm), so the mask
 * steers speed only. */
static atomic_uint cpu_mask = ATOMIC_VAR_INIT(~0u);

void omcti_set_cpu_flags_mask(unsigned mask)
{
    atomic_store(&cpu_mask, mask);
}

unsigned cpu_detect_flags(void)
{
    unsigned f = 0;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse2"))
        f |= OMCTI_CPU_FLAG_SSE2;
    if (__builtin_cpu_supports("avx2"))
        f |= OMCTI_CPU_FLAG_AVX2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl"))
        f |= OMCTI_CPU_FLAG_AVX512;
    if (__builtin_cpu_supports("avx512vbmi"))
        f |= OMCTI_CPU_FLAG_AVX512VBMI;
#endif
    return f;
}

unsigned cpu_flags(void)
{
    return cpu_detect_flags() & atomic_load(&cpu_mask);
}

static const unsigned level_flag[CPU_LEVEL_COUNT] = {
    0, OMCTI_CPU_FLAG_SSE2, OMCTI_CPU_FLAG_AVX2, OMCTI_CPU_FLAG_AVX512,
};

int cpu_level_of(unsigned flags)
{
    int level = CPU_LEVEL_C;
    while (level < CPU_LEVEL_MAX && (flags & level_flag[level + 1]))
        level++;
    return level;
}

unsigned cpu_level_flags(int level)
{
    unsigned f = 0;
    for (int l = 1; l <= level && l < CPU_LEVEL_COUNT; l++)
        f |= level_flag[l];
    if (level >= CPU_LEVEL_AVX512)
        f |= OMCTI_CPU_FLAG_AVX512VBMI; /* the filters' AVX-512 variants */
    return f;
}

const char *cpu_level_name(int level)
{
    static const char *const names[CPU_LEVEL_COUNT] = { "c", "sse2", "avx2", "avx512" };
    return level >= 0 && level < CPU_LEVEL_COUNT ? names[level] : "?";
}
