/* checkasm-style test of the filter DSP table (filters/mc_dsp.h): every
 * variant the CPU supports against the C reference, on random planes,
 * strides, fractions, block shapes and phases, with extreme pixel values
 * (0/255 noise: the largest filter overshoots) as well as smooth content.
 * Planes are allocated so that a read before the first used sample or more
 * than 32 bytes past the last shows up under ASan/valgrind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filters/mc_dsp.h"
#include "src/cpu.h"
#include "src/motion/sad.h"

static uint32_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static int rnd(uint64_t *s, int n)
{
    return (int)(rng_next(s) % (uint32_t)n);
}

static void fill(uint8_t *p, size_t n, uint64_t *s, int mode)
{
    for (size_t i = 0; i < n; i++) {
        const uint32_t r = rng_next(s);
        p[i] = mode == 0 ? (uint8_t)r : mode == 1 ? ((r & 1) ? 255 : 0)
                                                  : (uint8_t)((i * 5 / 16 + (r & 15)) & 255);
    }
}

/* A plane with `lead` readable bytes before sample (0,0) of every row and
 * the allocation ending one row + 32 bytes after the last used sample. */
typedef struct Plane {
    uint8_t *mem, *org;
    ptrdiff_t stride;
} Plane;

static int plane_alloc(Plane *p, uint64_t *s, int rows_before, int rows, int cols, int mode)
{
    p->stride = cols + 1 + rnd(s, 40);
    const size_t size = (size_t)(rows_before + rows) * p->stride + 32;
    p->mem = malloc(size);
    if (!p->mem) return -1;
    fill(p->mem, size, s, mode);
    p->org = p->mem + rows_before * p->stride + 1; /* one column before (0,0) */
    return 0;
}

int main(void)
{
    const int cpu = cpu_level_of(cpu_detect_flags());
    McDSP ref;
    omcti_set_cpu_flags_mask(cpu_level_flags(CPU_LEVEL_C));
        mc_dsp_init(&ref);
    uint64_t seed = 0x243f6a8885a308d3ull;
    int failures = 0;

    for (int level = CPU_LEVEL_AVX2; level <= CPU_LEVEL_MAX; level++) {
        if (level > cpu) {
            printf("SKIP mc_dsp %-6s (not supported by this CPU)\n", cpu_level_name(level));
            continue;
        }
        McDSP d;
        omcti_set_cpu_flags_mask(cpu_level_flags(level));
        mc_dsp_init(&d);
        if (d.level != level && !(level == CPU_LEVEL_AVX512 && d.level == CPU_LEVEL_AVX2)) {
            printf("FAIL mc_dsp %-6s: init gave level %d\n", cpu_level_name(level), d.level);
            failures++;
            continue;
        }
        int bad[5] = {0}, cases[5] = {0};
        for (int iter = 0; iter < 4000; iter++) {
            const int mode = iter % 3;
            /* pred2: widths 8/16/32, heights 1..32 */
            {
                static const int ws[3] = { 8, 16, 32 };
                const int w = ws[rnd(&seed, 3)], h = 1 + rnd(&seed, 32);
                const int pfx = rnd(&seed, 16), pfy = rnd(&seed, 16);
                const int nfx = iter & 8 ? 0 : rnd(&seed, 16), nfy = iter & 16 ? 0 : rnd(&seed, 16);
                const int wt = iter % 7 == 0 ? 256 * (iter / 7 % 2) : rnd(&seed, 257);
                Plane P, N;
                if (plane_alloc(&P, &seed, 1, h + 2, w + 2, mode) ||
                    plane_alloc(&N, &seed, 1, h + 2, w + 2, mode))
                    return 1;
                uint16_t a[32 * 40], b[32 * 40];
                const ptrdiff_t ds = w + rnd(&seed, 8);
                memset(a, 0xa5, sizeof a);
                memset(b, 0xa5, sizeof b);
                ref.pred2(a, ds, P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy, w, h, wt);
                d.pred2(b, ds, P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy, w, h, wt);
                if (memcmp(a, b, sizeof a)) {
                    if (!bad[0])
                        printf("  pred2 %s mismatch: %dx%d frac %d,%d / %d,%d wt %d\n",
                               cpu_level_name(level), w, h, pfx, pfy, nfx, nfy, wt);
                    bad[0]++;
                }
                cases[0]++;
                free(P.mem);
                free(N.mem);
            }
            /* sad_bilin and sad: any shape 1..64 */
            {
                const int w = 1 + rnd(&seed, iter < 2000 ? 48 : 64), h = 1 + rnd(&seed, 64);
                const int pfx = rnd(&seed, 16), pfy = rnd(&seed, 16);
                const int nfx = iter & 4 ? pfx : rnd(&seed, 16), nfy = rnd(&seed, 16);
                Plane P, N;
                if (plane_alloc(&P, &seed, 0, h + 1, w + 1, mode) ||
                    plane_alloc(&N, &seed, 0, h + 1, w + 1, mode))
                    return 1;
                const uint32_t r1 = ref.sad_bilin(P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy, w, h);
                const uint32_t o1 = d.sad_bilin(P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy, w, h);
                if (r1 != o1) {
                    if (!bad[1])
                        printf("  sad_bilin %s mismatch: %dx%d frac %d,%d / %d,%d: %u != %u\n",
                               cpu_level_name(level), w, h, pfx, pfy, nfx, nfy, o1, r1);
                    bad[1]++;
                }
                cases[1]++;
                const uint32_t r2 = ref.sad(P.org, P.stride, N.org, N.stride, w, h);
                const uint32_t o2 = d.sad(P.org, P.stride, N.org, N.stride, w, h);
                if (r2 != o2) {
                    if (!bad[2])
                        printf("  sad %s mismatch: %dx%d: %u != %u\n", cpu_level_name(level), w,
                               h, o2, r2);
                    bad[2]++;
                }
                cases[2]++;
                free(P.mem);
                free(N.mem);
            }
            /* obmc and put: w 1..32, samples 0..4080, weights summing to 8 */
            {
                const int w = 1 + rnd(&seed, 32), h = 1 + rnd(&seed, 32);
                const ptrdiff_t ps = 32, ks = 32, ds = w + rnd(&seed, 5);
                uint16_t o[32 * 32], hp[32 * 32], vp[32 * 32];
                int16_t k0[32 * 32], k1[32 * 32], k2[32 * 32];
                for (int i = 0; i < 32 * 32; i++) {
                    o[i] = (uint16_t)(mode == 1 ? (int)(rng_next(&seed) & 1) * 4080 : rnd(&seed, 4081));
                    hp[i] = (uint16_t)rnd(&seed, 4081);
                    vp[i] = (uint16_t)(mode == 1 ? 4080 : rnd(&seed, 4081));
                    k1[i] = (int16_t)rnd(&seed, 4);
                    k2[i] = (int16_t)rnd(&seed, 4);
                    k0[i] = (int16_t)(8 - k1[i] - k2[i]);
                }
                uint8_t a[33 * 40], b[33 * 40];
                memset(a, 0x5a, sizeof a);
                memset(b, 0x5a, sizeof b);
                ref.obmc(a, ds, o, hp, vp, ps, k0, k1, k2, ks, w, h);
                d.obmc(b, ds, o, hp, vp, ps, k0, k1, k2, ks, w, h);
                if (memcmp(a, b, sizeof a)) {
                    if (!bad[3])
                        printf("  obmc %s mismatch: %dx%d\n", cpu_level_name(level), w, h);
                    bad[3]++;
                }
                cases[3]++;
                memset(a, 0x5a, sizeof a);
                memset(b, 0x5a, sizeof b);
                ref.put(a, ds, o, ps, w, h);
                d.put(b, ds, o, ps, w, h);
                if (memcmp(a, b, sizeof a)) {
                    if (!bad[4])
                        printf("  put %s mismatch: %dx%d\n", cpu_level_name(level), w, h);
                    bad[4]++;
                }
                cases[4]++;
            }
        }
        static const char *const names[5] = { "pred2", "sad_bilin", "sad", "obmc", "put" };
        for (int k = 0; k < 5; k++) {
            printf("%s mc_dsp %-6s %-9s %d random cases, %d mismatches\n", bad[k] ? "FAIL" : "PASS",
                   cpu_level_name(level), names[k], cases[k], bad[k]);
            failures += bad[k] != 0;
        }
    }

    /* The check itself must be able to fail: a changed tap is detected. */
    {
        McDSP d;
        omcti_set_cpu_flags_mask(cpu_level_flags(CPU_LEVEL_MAX));
        mc_dsp_init(&d);
        Plane P;
        if (plane_alloc(&P, &seed, 1, 20, 20, 0)) return 1;
        uint16_t a[16 * 16], b[16 * 16];
        ref.pred2(a, 16, P.org, P.stride, 5, 3, P.org, P.stride, 5, 3, 16, 16, 100);
        d.pred2(b, 16, P.org, P.stride, 5, 4, P.org, P.stride, 5, 4, 16, 16, 100);
        const int caught = memcmp(a, b, sizeof a) != 0;
        printf("%s mc_dsp self-check (another fraction is detected)\n", caught ? "PASS" : "FAIL");
        failures += !caught;
        free(P.mem);
    }
    printf("%s: %d failure(s); cpu level %s\n", failures ? "FAIL" : "PASS", failures,
           cpu_level_name(cpu));
    return failures ? 1 : 0;
}
