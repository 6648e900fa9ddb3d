/* Search correctness:
 * (b) the engine's full search equals a naive brute force written here, on
 *     random frames of several sizes (non-multiples of the block included),
 *     both fields, every SIMD level, including heavy-tie content;
 * (c) known global shifts up to +-range are recovered exactly by full search
 *     in the interior, and by diamond search on smooth content within reach. */
#include <stdarg.h>

#include "motion_test_util.h"
#include "src/cpu.h"
#include "src/motion/search.h"

typedef struct Case {
    int w, h, block, range;
    int content;   /* 0: noise, 1: two-level noise (many ties), 2: flat */
} Case;

static int failures;

static void report(int ok, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void report(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures += !ok;
}

static void fill_content(MtImage *im, int content, uint64_t *seed)
{
    for (int i = 0; i < im->w * im->h; i++) {
        const uint32_t r = mt_rand(seed);
        im->y[i] = content == 0 ? (uint8_t)r : content == 1 ? (uint8_t)(100 + (r & 1)) : 77;
    }
}

static int run_estimate(const MtImage *a, const MtImage *b, const MotionParams *p, int level,
                        MotionFields *f)
{
    char err[256];
    OmctiFrame fa, fb;
    const int pad = motion_required_pad(p->block, p->range);
    MotionEngine *e = NULL;
    if (mt_frame_from_image(&fa, a, pad) < 0 || mt_frame_from_image(&fb, b, pad) < 0 ||
        motion_fields_alloc(f, p->width, p->height, p->block) < 0) {
        fprintf(stderr, "allocation failed\n");
        exit(1);
    }
    int ret = (omcti_set_cpu_flags_mask(cpu_level_flags(level)), motion_engine_cpu.create(&e, p, err, sizeof err));
    if (ret >= 0)
        ret = motion_engine_cpu.estimate(e, &fa, &fb, f, err, sizeof err);
    if (ret < 0)
        fprintf(stderr, "engine: %s\n", err);
    motion_engine_cpu.destroy(&e);
    frame_free(&fa);
    frame_free(&fb);
    return ret;
}

static void test_full_vs_naive(void)
{
    static const Case cases[] = {
        { 17, 9, 8, 5, 0 },     { 17, 9, 16, 3, 1 },  { 176, 144, 16, 7, 0 },
        { 97, 61, 16, 16, 0 },  { 97, 61, 16, 16, 1 }, { 65, 33, 32, 12, 0 },
        { 40, 24, 8, 16, 1 },   { 48, 48, 16, 4, 2 },  { 353, 289, 16, 9, 0 },
        { 33, 31, 32, 33, 0 },  { 24, 20, 8, 64, 0 },
    };
    uint64_t seed = 12345;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const Case *c = &cases[ci];
        MtImage a, b;
        if (mt_image_alloc(&a, c->w, c->h) < 0 || mt_image_alloc(&b, c->w, c->h) < 0)
            exit(1);
        fill_content(&a, c->content, &seed);
        fill_content(&b, c->content, &seed);
        /* Make b partly a shifted a, so real minima exist besides noise. */
        if (c->content == 0)
            for (int y = 0; y < c->h; y++)
                for (int x = 0; x < c->w / 2; x++)
                    b.y[y * c->w + x] = mt_px(&a, x - 3, y + 2);

        const int bw = (c->w + c->block - 1) / c->block, bh = (c->h + c->block - 1) / c->block;
        MotionVector *nf = malloc(sizeof *nf * bw * bh), *nb = malloc(sizeof *nb * bw * bh);
        uint32_t *sf = malloc(sizeof *sf * bw * bh), *sb = malloc(sizeof *sb * bw * bh);
        for (int by = 0; by < bh; by++)
            for (int bx = 0; bx < bw; bx++) {
                mt_naive_full(&a, &b, c->block, c->range, bx, by, &nf[by * bw + bx], &sf[by * bw + bx]);
                mt_naive_full(&b, &a, c->block, c->range, bx, by, &nb[by * bw + bx], &sb[by * bw + bx]);
            }
        for (int level = CPU_LEVEL_C; level <= cpu_level_of(cpu_detect_flags()); level++) {
            MotionParams p = { .width = c->w, .height = c->h, .block = c->block,
                               .range = c->range, .search = OMCTI_SEARCH_FULL, .threads = 2 };
            MotionFields f;
            int bad = 0;
            if (run_estimate(&a, &b, &p, level, &f) < 0) {
                bad = -1;
            } else {
                for (int i = 0; i < bw * bh; i++) {
                    const int ok = f.fwd.mv[i].x == nf[i].x && f.fwd.mv[i].y == nf[i].y &&
                                   f.fwd.sad[i] == sf[i] && f.bwd.mv[i].x == nb[i].x &&
                                   f.bwd.mv[i].y == nb[i].y && f.bwd.sad[i] == sb[i];
                    if (!ok && !bad)
                        printf("  block %d: fwd (%d,%d)/%u bwd (%d,%d)/%u, naive fwd (%d,%d)/%u bwd (%d,%d)/%u\n",
                               i, f.fwd.mv[i].x, f.fwd.mv[i].y, f.fwd.sad[i], f.bwd.mv[i].x,
                               f.bwd.mv[i].y, f.bwd.sad[i], nf[i].x, nf[i].y, sf[i], nb[i].x,
                               nb[i].y, sb[i]);
                    bad += !ok;
                }
                const uint64_t side = 2 * (uint64_t)c->range + 1;
                const uint64_t want = 2ull * bw * bh * side * side * c->block * c->block;
                if (f.abs_diffs != want) {
                    printf("  abs_diffs %llu, expected %llu\n", (unsigned long long)f.abs_diffs,
                           (unsigned long long)want);
                    bad++;
                }
            }
            report(bad == 0, "full == naive  %3dx%-3d block %2d range %2d content %d level %-6s (%d blocks x 2 fields)",
                   c->w, c->h, c->block, c->range, c->content, cpu_level_name(level), bw * bh);
            motion_fields_free(&f);
        }
        free(nf); free(nb); free(sf); free(sb);
        free(a.y);
        free(b.y);
    }
}

/* next(x, y) = prev(x - sx, y - sy): prev's block at B is next's at B + s. */
static void test_global_shifts(OmctiSearch search, int smooth, const int (*shifts)[2], int nshifts,
                               int range, int informational)
{
    const int w = 256, h = 176, block = 16;
    const int bw = w / block, bh = h / block;
    for (int si = 0; si < nshifts; si++) {
        const int sx = shifts[si][0], sy = shifts[si][1];
        MtImage a, b;
        if (mt_image_alloc(&a, w, h) < 0 || mt_image_alloc(&b, w, h) < 0)
            exit(1);
        /* Both frames sample one larger texture, so the shift is exact. */
        /* Both frames sample one larger texture, so the shift is exact. */
        const int m = 32, tw = w + 2 * m;
        uint8_t *tex = smooth ? mt_smooth_texture(tw, h + 2 * m, 4, 11) : NULL;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                a.y[y * w + x] = smooth ? tex[(y + m) * tw + x + m] : mt_noise_at(x, y, 7);
                b.y[y * w + x] = smooth ? tex[(y + m - sy) * tw + x + m - sx]
                                        : mt_noise_at(x - sx, y - sy, 7);
            }
        free(tex);
        MotionParams p = { .width = w, .height = h, .block = block, .range = range,
                           .search = search, .threads = 2 };
        MotionFields f;
        int checked = 0, bad = 0;
        if (run_estimate(&a, &b, &p, CPU_LEVEL_MAX, &f) < 0) {
            bad = 1;
        } else {
            for (int by = 0; by < bh; by++)
                for (int bx = 0; bx < bw; bx++) {
                    const int x0 = bx * block, y0 = by * block, i = by * bw + bx;
                    /* Interior: the block, shifted either way, stays inside. */
                    if (x0 - abs(sx) < 0 || y0 - abs(sy) < 0 || x0 + block + abs(sx) > w ||
                        y0 + block + abs(sy) > h)
                        continue;
                    checked++;
                    const int ok = f.fwd.mv[i].x == sx && f.fwd.mv[i].y == sy && f.fwd.sad[i] == 0 &&
                                   f.bwd.mv[i].x == -sx && f.bwd.mv[i].y == -sy && f.bwd.sad[i] == 0;
                    if (!ok && !bad && !informational && (search == OMCTI_SEARCH_FULL || (abs(sx) <= 2 && abs(sy) <= 2)))
                        printf("  block (%d,%d): fwd (%d,%d) sad %u, bwd (%d,%d) sad %u\n", bx, by,
                               f.fwd.mv[i].x, f.fwd.mv[i].y, f.fwd.sad[i], f.bwd.mv[i].x,
                               f.bwd.mv[i].y, f.bwd.sad[i]);
                    bad += !ok;
                }
        }
        if (informational) {
            printf("INFO %-7s search beyond reach: shift (%3d,%3d) found in %d/%d interior blocks\n",
                   search == OMCTI_SEARCH_FULL ? "full" : "diamond", sx, sy, checked - bad, checked);
        } else {
            /* Diamond search is a local descent: shifts up to 2 px must be exact
             * in every interior block; up to 8 px, in at least 95%. */
            const int near = abs(sx) <= 2 && abs(sy) <= 2;
            const int pass = checked > 0 &&
                             (search == OMCTI_SEARCH_FULL || near ? bad == 0 : bad * 20 <= checked);
            report(pass, "%-7s search recovers shift (%3d,%3d) range %d on %s content: %d/%d interior blocks",
                   search == OMCTI_SEARCH_FULL ? "full" : "diamond", sx, sy, range,
                   smooth ? "smooth" : "noise", checked - bad, checked);
        }
        motion_fields_free(&f);
        free(a.y);
        free(b.y);
    }
}

int main(void)
{
    test_full_vs_naive();

    static const int full_shifts[][2] = {
        { 0, 0 }, { 1, 1 }, { 16, -16 }, { -16, 16 }, { 16, 0 }, { 0, -16 }, { -11, 7 }, { 5, -3 },
    };
    test_global_shifts(OMCTI_SEARCH_FULL, 0, full_shifts, 8, 16, 0);
    static const int full_shifts_w5[][2] = { { 5, -5 }, { -5, 2 } };
    test_global_shifts(OMCTI_SEARCH_FULL, 0, full_shifts_w5, 2, 5, 0);
    /* Diamond search descends the SAD surface from (0,0); on this texture
     * (features of ~8 px) its basin reaches about 8 px. */
    static const int diamond_shifts[][2] = {
        { 0, 0 }, { 1, 0 }, { -2, 1 }, { 3, -2 }, { 2, 2 }, { 4, -1 }, { -5, 4 }, { 6, 0 }, { -8, -3 },
    };
    test_global_shifts(OMCTI_SEARCH_DIAMOND, 1, diamond_shifts, 9, 16, 0);
    static const int far_shifts[][2] = { { 7, 6 }, { 10, -9 } };
    test_global_shifts(OMCTI_SEARCH_DIAMOND, 1, far_shifts, 2, 16, 1);
    /* A shift on the window's corner is reached with a small range. */
    static const int beyond[][2] = { { 4, -4 } };
    test_global_shifts(OMCTI_SEARCH_DIAMOND, 1, beyond, 1, 4, 0);

    printf("%s: test_search, %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
