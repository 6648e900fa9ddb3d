/* checkasm: the filter DSP table (filters/mc_dsp.h) on random planes,
 * strides, fractions, block shapes and phases, with extreme pixel values
 * (0/255 noise: the largest filter overshoots) as well as smooth content.
 * Planes are allocated so that a read before the first used sample or more
 * than 32 bytes past the last shows up under ASan or valgrind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filters/mc_dsp.h"
#include "tests/checkasm/checkasm.h"

#define ITERS 2000

/* A plane with `lead` readable bytes before sample (0,0) of every row and
 * the allocation ending one row + 32 bytes after the last used sample. */
typedef struct Plane {
    uint8_t *mem, *org;
    ptrdiff_t stride;
} Plane;

static void plane_alloc(Plane *p, int rows_before, int rows, int cols, int mode)
{
    p->stride = cols + 1 + checkasm_rnd(40);
    const size_t size = (size_t)(rows_before + rows) * p->stride + 32;
    p->mem = malloc(size);
    checkasm_fill(p->mem, size, mode);
    p->org = p->mem + rows_before * p->stride + 1; /* one column before (0,0) */
}

static void check_pred2(const McDSP *d, const McDSP *c)
{
    const McPred2Fn ref = checkasm_check_func((void *)d->pred2, (void *)c->pred2, "mc_pred2");
    if (!ref)
        return;
    for (int iter = 0; iter < ITERS; iter++) {
        static const int ws[3] = { 8, 16, 32 };
        const int w = ws[checkasm_rnd(3)], h = 1 + checkasm_rnd(32);
        /* every kind of each side (both fractions 0, one, none) often:
         * the kernels take a shorter path where a fraction is 0 */
        const int pfx = iter & 32 ? 0 : checkasm_rnd(16), pfy = iter & 64 ? 0 : checkasm_rnd(16);
        const int nfx = iter & 8 ? 0 : checkasm_rnd(16), nfy = iter & 16 ? 0 : checkasm_rnd(16);
        const int wt = iter % 7 == 0 ? 256 * (iter / 7 % 2) : checkasm_rnd(257);
        Plane P, N;
        plane_alloc(&P, 1, h + 2, w + 2, iter % 3);
        plane_alloc(&N, 1, h + 2, w + 2, iter % 3);
        uint16_t a[32 * 40], b[32 * 40];
        const ptrdiff_t ds = w + checkasm_rnd(8);
        memset(a, 0xa5, sizeof a);
        memset(b, 0xa5, sizeof b);
        ref(a, ds, P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy, w, h, wt);
        d->pred2(b, ds, P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy, w, h, wt);
        if (memcmp(a, b, sizeof a))
            checkasm_fail("%dx%d frac %d,%d / %d,%d wt %d", w, h, pfx, pfy, nfx, nfy, wt);
        free(P.mem);
        free(N.mem);
    }
    checkasm_report(ITERS);
    if (checkasm_benching()) {
        Plane P;
        plane_alloc(&P, 1, 35, 35, 2);
        uint16_t a[32 * 32];
        for (int k = 0; k < 2; k++) {
            const McPred2Fn fn = k ? d->pred2 : ref;
            const double t0 = checkasm_now();
            for (int i = 0; i < 20000; i++)
                fn(a, 32, P.org, P.stride, 5, 3, P.org, P.stride, 11, 13, 16, 16, 128);
            checkasm_bench_result(!k, checkasm_now() - t0, 20000);
        }
        free(P.mem);
    }
}

/* A bound for the early exit of the SADs (mc_dsp.h), from the exact SAD and
 * the sum of the first strips (part: a strip's partial sum, where a kernel
 * must stop exactly there): none, 0, just below, at or above the SAD, at or
 * around the partial sum, or random in [0, 1.5 x the SAD]. */
static uint32_t pick_bound(uint32_t exact, uint32_t part)
{
    switch (checkasm_rnd(9)) {
    case 0: return UINT32_MAX;
    case 1: return 0;
    case 2: return exact ? exact - 1 : 0;
    case 3: return exact;
    case 4: return exact + 1;
    case 5: return part;
    case 6: return part ? part - 1 : 0;
    case 7: return part + 1;
    default: {
        const uint32_t top = exact / 2 * 3 < 0x7fffffff ? exact / 2 * 3 + 1 : 0x7fffffff;
        return (uint32_t)checkasm_rnd((int)top);
    }
    }
}

/* The strips of a window of h rows that a bound may end at: 1 .. all but
 * the last. */
static int some_strips(int h)
{
    const int strips = (h + MC_SAD_STRIP - 1) / MC_SAD_STRIP;
    return strips > 1 ? 1 + checkasm_rnd(strips - 1) : 1;
}

/* The contract of a bounded SAD: exact below the bound, else at least the
 * bound and at most the exact SAD. */
static int bound_kept(uint32_t got, uint32_t exact, uint32_t bound)
{
    return exact < bound ? got == exact : got >= bound && got <= exact;
}

static void check_sads(const McDSP *d, const McDSP *c)
{
    const McSadBilinFn ref_b = checkasm_check_func((void *)d->sad_bilin, (void *)c->sad_bilin,
                                                   "mc_sad_bilin");
    if (ref_b) {
        for (int iter = 0; iter < ITERS; iter++) {
            /* every 4th case a size the variants specialise (16x16, 20x20, 8x8) */
            static const int sizes[3] = { 16, 20, 8 };
            const int fixed = iter % 4 == 3 ? sizes[iter / 4 % 3] : 0;
            const int w = fixed ? fixed : 1 + checkasm_rnd(iter < ITERS / 2 ? 48 : 64);
            const int h = fixed ? fixed : 1 + checkasm_rnd(64);
            /* every kind of each side (both fractions 0, one, none) often,
             * and on half the cases the same kind on both sides (the same
             * fractions, or mirrored as at t = 1/2): the kernels take a
             * shorter path where a fraction is 0, specialised where the
             * kinds agree */
            const int pfx = iter & 32 ? 0 : checkasm_rnd(16);
            const int pfy = iter & 64 ? 0 : checkasm_rnd(16);
            const int nfx = iter & 4 ? (iter & 8 ? pfx : (16 - pfx) & 15) : checkasm_rnd(16);
            const int nfy = iter & 4 ? (iter & 8 ? pfy : (16 - pfy) & 15) : checkasm_rnd(16);
            Plane P, N;
            plane_alloc(&P, 0, h + 1, w + 1, iter % 3);
            plane_alloc(&N, 0, h + 1, w + 1, iter % 3);
            const uint32_t exact = ref_b(P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy,
                                         w, h, UINT32_MAX);
            const int hs = MC_SAD_STRIP * some_strips(h);
            const uint32_t part = ref_b(P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy, w,
                                        hs < h ? hs : h, UINT32_MAX);
            const uint32_t bound = pick_bound(exact, part);
            const uint32_t r = ref_b(P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy, w, h,
                                     bound);
            const uint32_t n = d->sad_bilin(P.org, P.stride, pfx, pfy, N.org, N.stride, nfx, nfy,
                                            w, h, bound);
            if (r != n || !bound_kept(r, exact, bound))
                checkasm_fail("%dx%d frac %d,%d / %d,%d bound %u: %u != %u (exact %u)", w, h,
                              pfx, pfy, nfx, nfy, bound, n, r, exact);
            free(P.mem);
            free(N.mem);
        }
        checkasm_report(ITERS);
        /* the sizes the conversion runs: the refinement's 16x16 block, the
         * quadrant split's 8x8 quarter */
        for (int size = 16; checkasm_benching() && size >= 8; size -= 8) {
            Plane P;
            plane_alloc(&P, 0, 40, 40, 2);
            char label[32];
            snprintf(label, sizeof label, "mc_sad_bilin_%dx%d", size, size);
            for (int k = 0; k < 2; k++) {
                const McSadBilinFn fn = k ? d->sad_bilin : ref_b;
                uint32_t sink = 0;
                const double t0 = checkasm_now();
                for (int i = 0; i < 20000; i++)
                    sink += fn(P.org + (i & 7), P.stride, i & 15, (i >> 4) & 15,
                               P.org + P.stride, P.stride, (i >> 2) & 15, 6, size, size,
                               UINT32_MAX);
                checkasm_bench_result_as(label, !k, checkasm_now() - t0 + 0 * sink, 20000);
            }
            free(P.mem);
        }
    }
    const McSadFn ref = checkasm_check_func((void *)d->sad, (void *)c->sad, "mc_sad");
    if (ref) {
        for (int iter = 0; iter < ITERS; iter++) {
            const int fixed = iter % 4 == 3 ? 20 : 0; /* stage A's window */
            const int w = fixed ? fixed : 1 + checkasm_rnd(64);
            const int h = fixed ? fixed : 1 + checkasm_rnd(64);
            Plane P, N;
            plane_alloc(&P, 0, h, w, iter % 3);
            plane_alloc(&N, 0, h, w, iter % 3);
            const uint32_t exact = ref(P.org, P.stride, N.org, N.stride, w, h, UINT32_MAX);
            const int hs = MC_SAD_STRIP * some_strips(h);
            const uint32_t part = ref(P.org, P.stride, N.org, N.stride, w, hs < h ? hs : h,
                                      UINT32_MAX);
            const uint32_t bound = pick_bound(exact, part);
            const uint32_t r = ref(P.org, P.stride, N.org, N.stride, w, h, bound);
            const uint32_t n = d->sad(P.org, P.stride, N.org, N.stride, w, h, bound);
            if (r != n || !bound_kept(r, exact, bound))
                checkasm_fail("%dx%d bound %u: %u != %u (exact %u)", w, h, bound, n, r, exact);
            free(P.mem);
            free(N.mem);
        }
        checkasm_report(ITERS);
    }
}

/* obmc and put: w 1..32, samples 0..4080, weights in 1/8 summing to 8. */
static void check_obmc_put(const McDSP *d, const McDSP *c)
{
    const McObmcFn ref_o = checkasm_check_func((void *)d->obmc, (void *)c->obmc, "mc_obmc");
    for (int k = 0; k < 2; k++) {
        const void *ref = k ? checkasm_check_func((void *)d->put, (void *)c->put, "mc_put")
                            : (const void *)ref_o;
        if (!ref)
            continue;
        for (int iter = 0; iter < ITERS; iter++) {
            const int mode = iter % 3;
            const int w = 1 + checkasm_rnd(32), h = 1 + checkasm_rnd(32);
            const ptrdiff_t ps = 32, ks = 32, ds = w + checkasm_rnd(5);
            uint16_t o[32 * 32], hp[32 * 32], vp[32 * 32];
            int16_t k0[32 * 32], k1[32 * 32], k2[32 * 32];
            for (int i = 0; i < 32 * 32; i++) {
                o[i] = (uint16_t)(mode == 1 ? (int)(checkasm_rand() & 1) * 4080 : checkasm_rnd(4081));
                hp[i] = (uint16_t)checkasm_rnd(4081);
                vp[i] = (uint16_t)(mode == 1 ? 4080 : checkasm_rnd(4081));
                k1[i] = (int16_t)checkasm_rnd(4);
                k2[i] = (int16_t)checkasm_rnd(4);
                k0[i] = (int16_t)(8 - k1[i] - k2[i]);
            }
            uint8_t a[33 * 40], b[33 * 40];
            memset(a, 0x5a, sizeof a);
            memset(b, 0x5a, sizeof b);
            if (k) {
                ((McPutFn)ref)(a, ds, o, ps, w, h);
                d->put(b, ds, o, ps, w, h);
            } else {
                ((McObmcFn)ref)(a, ds, o, hp, vp, ps, k0, k1, k2, ks, w, h);
                d->obmc(b, ds, o, hp, vp, ps, k0, k1, k2, ks, w, h);
            }
            if (memcmp(a, b, sizeof a))
                checkasm_fail("%dx%d", w, h);
        }
        checkasm_report(ITERS);
    }
}

static void init_mc(void *t)
{
    mc_dsp_init(t);
}

void checkasm_check_mc(void)
{
    McDSP d, c;
    mc_dsp_init(&d);
    checkasm_c_table(init_mc, &c);
    check_pred2(&d, &c);
    check_sads(&d, &c);
    check_obmc_put(&d, &c);
}
