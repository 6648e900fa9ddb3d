/* checkasm: the SAD table (src/motion/sad.h): single blocks, x4 and the
 * full-search grid for 8x8, 16x16, 32x32, the window of any size (rect),
 * the pyramid's 2x2 means (down2),
 * and the full search's pick of the best window cost. References are
 * allocated to exactly the bytes a plain loop reads, so an over-read shows
 * up under ASan or valgrind. */
#include <stdlib.h>
#include <string.h>

#include "src/motion/sad.h"
#include "tests/checkasm/checkasm.h"

#define ITERS 300

static const int sizes[3] = { 8, 16, 32 };

static void check_sad_size(const SadDSP *d, const SadDSP *c, int si, uint8_t *cur,
                           uint32_t *out_ref, uint32_t *out_new)
{
    const int bw = sizes[si];
    const SadBlockFn ref_sad = checkasm_check_func((void *)d->sad[si], (void *)c->sad[si],
                                                   "sad_%dx%d", bw, bw);
    if (ref_sad) {
        for (int iter = 0; iter < ITERS; iter++) {
            const ptrdiff_t cs = bw + checkasm_rnd(70), rs = bw + checkasm_rnd(70);
            const size_t bytes = (size_t)(bw - 1) * rs + bw;
            uint8_t *b = malloc(bytes);
            checkasm_fill(cur, 32 * 200, iter % 3);
            checkasm_fill(b, bytes, iter % 3);
            const uint32_t r = ref_sad(cur, cs, b, rs), n = d->sad[si](cur, cs, b, rs);
            if (r != n)
                checkasm_fail("strides %td, %td: %u != %u", cs, rs, n, r);
            free(b);
        }
        checkasm_report(ITERS);
    }
    const SadX4Fn ref_x4 = checkasm_check_func((void *)d->x4[si], (void *)c->x4[si],
                                               "sad_x4_%dx%d", bw, bw);
    if (ref_x4) {
        for (int iter = 0; iter < ITERS; iter++) {
            const ptrdiff_t cs = bw + checkasm_rnd(70);
            const int nx = 1 + checkasm_rnd(40), ny = 1 + checkasm_rnd(12);
            const ptrdiff_t rs = nx + bw - 1 + checkasm_rnd(50);
            const size_t bytes = (size_t)(ny + bw - 2) * rs + (size_t)(nx + bw - 1);
            uint8_t *ref = malloc(bytes);
            checkasm_fill(cur, 32 * 200, iter % 3);
            checkasm_fill(ref, bytes, iter % 3);
            ptrdiff_t off[4];
            uint32_t got[4], want[4];
            for (int q = 0; q < 4; q++)
                off[q] = (ptrdiff_t)checkasm_rnd(ny) * rs + checkasm_rnd(nx);
            ref_x4(cur, cs, ref, rs, off, want);
            d->x4[si](cur, cs, ref, rs, off, got);
            for (int q = 0; q < 4; q++)
                if (got[q] != want[q] || want[q] != c->sad[si](cur, cs, ref + off[q], rs))
                    checkasm_fail("candidate %d at %td: %u != %u", q, off[q], got[q], want[q]);
            free(ref);
        }
        checkasm_report(ITERS);
    }
    const SadGridFn ref_grid = checkasm_check_func((void *)d->grid[si], (void *)c->grid[si],
                                                   "sad_grid_%dx%d", bw, bw);
    if (ref_grid) {
        for (int iter = 0; iter < ITERS; iter++) {
            const ptrdiff_t cs = bw + checkasm_rnd(70);
            const int nx = 1 + checkasm_rnd(iter < ITERS / 2 ? 40 : 140);
            const int ny = 1 + checkasm_rnd(iter < ITERS / 2 ? 12 : 140);
            const ptrdiff_t rs = nx + bw - 1 + checkasm_rnd(50);
            const size_t bytes = (size_t)(ny + bw - 2) * rs + (size_t)(nx + bw - 1);
            uint8_t *ref = malloc(bytes);
            checkasm_fill(cur, 32 * 200, iter % 3);
            checkasm_fill(ref, bytes, iter % 3);
            ref_grid(cur, cs, ref, rs, nx, ny, out_ref, nx + 3);
            d->grid[si](cur, cs, ref, rs, nx, ny, out_new, nx + 3);
            for (int y = 0, bad = 0; y < ny && !bad; y++)
                for (int x = 0; x < nx && !bad; x++)
                    if (out_ref[y * (nx + 3) + x] != out_new[y * (nx + 3) + x]) {
                        checkasm_fail("nx=%d ny=%d at (%d,%d): %u != %u", nx, ny, x, y,
                                      out_new[y * (nx + 3) + x], out_ref[y * (nx + 3) + x]);
                        bad = 1;
                    }
            free(ref);
        }
        checkasm_report(ITERS);
        if (checkasm_benching()) {
            const int rs = 33 + bw, reps = 200;
            uint8_t *ref = malloc((size_t)(33 + bw) * rs);
            checkasm_fill(ref, (size_t)(33 + bw) * rs, 2);
            for (int k = 0; k < 2; k++) {
                const SadGridFn fn = k ? d->grid[si] : ref_grid;
                const double t0 = checkasm_now();
                for (int i = 0; i < reps; i++)
                    fn(cur, 32, ref, rs, 33, 33, out_new, 33);
                checkasm_bench_result(!k, checkasm_now() - t0, reps);
            }
            free(ref);
        }
    }
}

/* rect: every width 1 .. 40 (all of the SSE2 kernel's tails) and random
 * heights and strides; both windows allocated to exactly the bytes a plain
 * loop reads. */
static void check_rect(const SadDSP *d, const SadDSP *c)
{
    const SadRectFn ref = checkasm_check_func((void *)d->rect, (void *)c->rect, "sad_rect");
    if (!ref)
        return;
    for (int iter = 0; iter < ITERS; iter++) {
        const int w = 1 + iter % 40, h = 1 + checkasm_rnd(24);
        const ptrdiff_t as = w + checkasm_rnd(40), bs = w + checkasm_rnd(40);
        const size_t na = (size_t)(h - 1) * as + w, nb = (size_t)(h - 1) * bs + w;
        uint8_t *a = malloc(na), *b = malloc(nb);
        checkasm_fill(a, na, iter % 3);
        checkasm_fill(b, nb, iter % 3);
        const uint32_t r = ref(a, as, b, bs, w, h), n = d->rect(a, as, b, bs, w, h);
        if (r != n)
            checkasm_fail("%dx%d strides %td, %td: %u != %u", w, h, as, bs, n, r);
        free(a);
        free(b);
    }
    checkasm_report(ITERS);
}

/* down2: every width 0 .. 80 (the SSE2 kernel's 16-wide steps and tails),
 * rows allocated to exactly the 2n bytes read, a destination of n bytes. */
static void check_down2(const SadDSP *d, const SadDSP *c)
{
    const SadDown2Fn ref = checkasm_check_func((void *)d->down2, (void *)c->down2, "down2");
    if (!ref)
        return;
    for (int iter = 0; iter < ITERS; iter++) {
        const int n = iter % 81;
        uint8_t *r0 = malloc(n ? 2 * (size_t)n : 1), *r1 = malloc(n ? 2 * (size_t)n : 1);
        uint8_t *a = malloc((size_t)n + 1), *b = malloc((size_t)n + 1);
        checkasm_fill(r0, 2 * (size_t)n, iter % 3);
        checkasm_fill(r1, 2 * (size_t)n, (iter + 1) % 3);
        memset(a, 0xa5, (size_t)n + 1);
        memset(b, 0x5a, (size_t)n + 1);
        ref(a, r0, r1, n);
        d->down2(b, r0, r1, n);
        if (memcmp(a, b, (size_t)n) || b[n] != 0x5a)
            checkasm_fail("down2 of %d columns differs (or writes past them)", n);
        free(r0);
        free(r1);
        free(a);
        free(b);
    }
    if (checkasm_benching()) {
        enum { W = 960 };
        uint8_t *r0 = malloc(2 * W), *r1 = malloc(2 * W), *o = malloc(W);
        checkasm_fill(r0, 2 * W, 1);
        checkasm_fill(r1, 2 * W, 1);
        for (int v = 0; v < 2; v++) {
            const SadDown2Fn fn = v ? d->down2 : ref;
            const double t0 = checkasm_now();
            for (int k = 0; k < 20000; k++)
                fn(o, r0, r1, W);
            checkasm_bench_result(!v, checkasm_now() - t0, 20000);
        }
        free(r0);
        free(r1);
        free(o);
    }
    checkasm_report(ITERS);
}

static void init_sad(void *t)
{
    sad_dsp_init(t);
}

/* --self-check: a variant with one wrong cost, which must be reported. */
static void grid_16x16_broken(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                              ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    SadDSP c;
    checkasm_c_table(init_sad, &c);
    c.grid[1](cur, cs, ref, rs, nx, ny, out, os);
    out[(ny - 1) * os + nx - 1] ^= 1;
}

void checkasm_check_sad(void)
{
    SadDSP d, c;
    sad_dsp_init(&d);
    checkasm_c_table(init_sad, &c);
    if (checkasm_self_check())
        d.grid[1] = grid_16x16_broken;
    uint8_t *cur = malloc(32 * 200);
    uint32_t *out_ref = malloc(sizeof(uint32_t) * 160 * 160);
    uint32_t *out_new = malloc(sizeof(uint32_t) * 160 * 160);
    for (int si = 0; si < 3; si++)
        check_sad_size(&d, &c, si, cur, out_ref, out_new);
    check_rect(&d, &c);
    check_down2(&d, &c);
    free(cur);
    free(out_ref);
    free(out_new);
}

/* The full search's pick: random windows (sides 3 .. 129) of costs with
 * many ties (costs from a small set), ranks a random permutation. */
void checkasm_check_pick(void)
{
    SadDSP d, c;
    sad_dsp_init(&d);
    checkasm_c_table(init_sad, &c);
    const PickBestFn ref = checkasm_check_func((void *)d.pick, (void *)c.pick, "pick_best");
    if (!ref)
        return;
    const int nmax = 129 * 129;
    uint32_t *costs = malloc(nmax * sizeof *costs), *rank = malloc(nmax * sizeof *rank);
    for (int iter = 0; iter < ITERS; iter++) {
        const int side = 3 + 2 * checkasm_rnd(64), n = side * side;
        const uint32_t spread = iter % 3 == 0 ? 3 : iter % 3 == 1 ? 1000 : UINT32_MAX;
        for (int i = 0; i < n; i++) {
            costs[i] = spread == UINT32_MAX ? checkasm_rand() : checkasm_rand() % spread;
            rank[i] = (uint32_t)i;
        }
        for (int i = n - 1; i > 0; i--) {
            const int j = checkasm_rnd(i + 1);
            const uint32_t t = rank[i];
            rank[i] = rank[j];
            rank[j] = t;
        }
        uint32_t cr, cn;
        const uint32_t kr = ref(costs, rank, n, &cr), kn = d.pick(costs, rank, n, &cn);
        if (kr != kn || cr != cn)
            checkasm_fail("side %d: rank %u cost %u != rank %u cost %u", side, kn, cn, kr, cr);
    }
    checkasm_report(ITERS);
    free(costs);
    free(rank);
}
