/* CPU features for the DSP tables (src/motion/sad.h, filters/mc_dsp.h), in
 * dav1d's manner: the features the CPU has, masked by
 * omcti_set_cpu_flags_mask() (omcti.h), decide which variants a table gets
 * when it is initialised. Tests (tests/checkasm) and `omcti bench` lower the
 * mask to run every variant; outputs are identical at every mask. */
#ifndef OMCTI_CPU_H
#define OMCTI_CPU_H

#include "omcti.h"

/* Levels of the x86 variants, each including the ones below. */
enum {
    CPU_LEVEL_C = 0,
    CPU_LEVEL_SSE2,
    CPU_LEVEL_AVX2,
    CPU_LEVEL_AVX512,   /* AVX-512 F + BW + VL */
    CPU_LEVEL_COUNT,
    CPU_LEVEL_MAX = CPU_LEVEL_COUNT - 1,
};

/* The features this CPU (and OS) supports, unmasked. */
unsigned cpu_detect_flags(void);

/* The features the DSP tables may use: detected & mask. */
unsigned cpu_flags(void);

/* The highest level whose features (and those of the levels below) are all
 * in flags. */
int cpu_level_of(unsigned flags);

/* The flags of a level and the levels below it (for a mask); AVX-512
 * includes VBMI. */
unsigned cpu_level_flags(int level);

const char *cpu_level_name(int level);

#endif
