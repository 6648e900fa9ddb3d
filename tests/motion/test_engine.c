/* (d) The CPU engine's fields are identical, bit for bit, for 1, 2 and 3
 * threads and every SIMD level, for every search, several sizes, block
 * sizes and ranges; plus the engine's argument checks. */
#include "motion_test_util.h"
#include "src/cpu.h"
#include "src/motion/search.h"

static int failures;

static int fields_equal(const MotionFields *a, const MotionFields *b)
{
    const size_t n = (size_t)a->fwd.bw * a->fwd.bh;
    return a->abs_diffs == b->abs_diffs && !memcmp(a->fwd.mv, b->fwd.mv, n * sizeof *a->fwd.mv) &&
           !memcmp(a->bwd.mv, b->bwd.mv, n * sizeof *a->bwd.mv) &&
           !memcmp(a->fwd.sad, b->fwd.sad, n * sizeof *a->fwd.sad) &&
           !memcmp(a->bwd.sad, b->bwd.sad, n * sizeof *a->bwd.sad);
}

static int vectors_in_window(const MotionFields *f, int range)
{
    const size_t n = (size_t)f->fwd.bw * f->fwd.bh;
    for (size_t i = 0; i < n; i++)
        if (abs(f->fwd.mv[i].x) > range || abs(f->fwd.mv[i].y) > range ||
            abs(f->bwd.mv[i].x) > range || abs(f->bwd.mv[i].y) > range)
            return 0;
    return 1;
}

/* Natural-looking pair: a smooth texture, the second frame moved by a
 * position-dependent (zoom-like) displacement plus noise, so every block has
 * a different vector and near-ties are frequent. */
static void make_pair(MtImage *a, MtImage *b, int w, int h, uint64_t *seed)
{
    const int m = 48, tw = w + 2 * m, th = h + 2 * m;
    uint8_t *tex = mt_smooth_texture(tw, th, 2, (uint32_t)*seed);
    if (mt_image_alloc(a, w, h) < 0 || mt_image_alloc(b, w, h) < 0)
        exit(1);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int dx = (x - w / 2) * 12 / (w + 1), dy = (y - h / 2) * 10 / (h + 1);
            a->y[y * w + x] = tex[(y + m) * tw + x + m];
            const int v = tex[(y + m + dy) * tw + x + m + dx] + (int)(mt_rand(seed) % 5) - 2;
            b->y[y * w + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    free(tex);
}

int main(void)
{
    static const struct { int w, h, block, range; } cases[] = {
        { 176, 144, 16, 16 }, { 360, 240, 16, 7 }, { 353, 289, 8, 12 }, { 17, 9, 16, 16 },
        { 17, 9, 8, 64 },     { 130, 70, 32, 20 }, { 1920, 1080, 16, 4 },
    };
    uint64_t seed = 777;
    char err[256];
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const int w = cases[ci].w, h = cases[ci].h, block = cases[ci].block, range = cases[ci].range;
        MtImage a, b;
        make_pair(&a, &b, w, h, &seed);
        const int pad = motion_required_pad(block, range);
        OmctiFrame fa, fb;
        if (mt_frame_from_image(&fa, &a, pad) < 0 || mt_frame_from_image(&fb, &b, pad) < 0)
            return 1;
        for (int search = 0; search < OMCTI_SEARCH_COUNT; search++) {
            MotionFields ref, f;
            if (motion_fields_alloc(&ref, w, h, block) < 0 || motion_fields_alloc(&f, w, h, block) < 0)
                return 1;
            int configs = 0, bad = 0, have_ref = 0;
            /* The C level on 1080p full search takes a few seconds: start
             * the reference at the lowest SIMD level there. */
            const int first_level = w * h > 1000000 ? CPU_LEVEL_SSE2 : CPU_LEVEL_C;
            /* 7 and 40 threads: more threads than work units on the small
             * pictures (17x9 has 2), shares left to the others. */
            static const int thread_counts[] = { 1, 2, 3, 7, 40 };
            for (int level = first_level; level <= cpu_level_of(cpu_detect_flags()); level++)
                for (size_t ti = 0; ti < sizeof thread_counts / sizeof thread_counts[0]; ti++) {
                    const int threads = thread_counts[ti];
                    MotionParams p = { .width = w, .height = h, .block = block, .range = range,
                                       .search = (OmctiSearch)search, .threads = threads };
                    MotionEngine *e = NULL;
                    MotionFields *out = have_ref ? &f : &ref;
                    int ret = (omcti_set_cpu_flags_mask(cpu_level_flags(level)), motion_engine_cpu.create(&e, &p, err, sizeof err));
                    if (ret >= 0 && cpu_engine_sad_level(e) != level)
                        ret = -1, snprintf(err, sizeof err, "level %d not taken", level);
                    /* Twice, so that state kept between pairs would show. */
                    for (int rep = 0; rep < 2 && ret >= 0; rep++)
                        ret = motion_engine_cpu.estimate(e, &fa, &fb, out, err, sizeof err);
                    motion_engine_cpu.destroy(&e);
                    configs++;
                    if (ret < 0) {
                        printf("  %s\n", err);
                        bad++;
                    } else if (!have_ref) {
                        have_ref = 1;
                        /* The pyramid search is not bounded by the range. */
                        if ((search != OMCTI_SEARCH_PYRAMID && !vectors_in_window(&ref, range)) ||
                            ref.abs_diffs == 0) {
                            printf("  reference fields out of the window or empty\n");
                            bad++;
                        }
                    } else if (!fields_equal(&ref, &f)) {
                        printf("  differs: level %s, %d threads\n", cpu_level_name(level), threads);
                        bad++;
                    }
                }
            printf("%s engine %-7s %4dx%-4d block %2d range %2d: fields identical over %d configs (levels %s..%s x 1, 2, 3, 7, 40 threads)\n",
                   bad ? "FAIL" : "PASS", omcti_search_name((OmctiSearch)search), w, h, block, range,
                   configs, cpu_level_name(first_level), cpu_level_name(cpu_level_of(cpu_detect_flags())));
            failures += bad != 0;
            motion_fields_free(&ref);
            motion_fields_free(&f);
        }
        frame_free(&fa);
        frame_free(&fb);
        free(a.y);
        free(b.y);
    }

    /* Argument checks: each must be refused with a message. */
    {
        static const struct { int block, range, w, h; const char *what; } badp[] = {
            { 12, 16, 64, 64, "block 12" }, { 16, 0, 64, 64, "range 0" },
            { 16, 65, 64, 64, "range 65" }, { 16, 16, 0, 64, "width 0" },
        };
        for (size_t i = 0; i < sizeof badp / sizeof badp[0]; i++) {
            MotionParams p = { .width = badp[i].w, .height = badp[i].h, .block = badp[i].block,
                               .range = badp[i].range, .search = OMCTI_SEARCH_FULL, .threads = 1 };
            MotionEngine *e = NULL;
            err[0] = 0;
            const int ret = motion_engine_cpu.create(&e, &p, err, sizeof err);
            const int ok = ret == OMCTI_ERR_INVALID && !e && err[0];
            printf("%s engine refuses %s (%s)\n", ok ? "PASS" : "FAIL", badp[i].what, err);
            failures += !ok;
            motion_engine_cpu.destroy(&e);
        }
        /* Frames padded less than range + block are refused, not overrun. */
        MtImage a;
        OmctiFrame fa;
        MotionFields f;
        if (mt_image_alloc(&a, 64, 64) < 0)
            return 1;
        memset(a.y, 1, 64 * 64);
        MotionParams p = { .width = 64, .height = 64, .block = 16, .range = 40,
                           .search = OMCTI_SEARCH_FULL, .threads = 1 };
        MotionEngine *e = NULL;
        int ret = mt_frame_from_image(&fa, &a, 32) < 0 || motion_fields_alloc(&f, 64, 64, 16) < 0 ? -100 : 0;
        if (!ret)
            ret = motion_engine_cpu.create(&e, &p, err, sizeof err);
        if (!ret)
            ret = motion_engine_cpu.estimate(e, &fa, &fa, &f, err, sizeof err);
        const int ok = ret == OMCTI_ERR_INVALID;
        printf("%s engine refuses frames padded by %d < range + block (%s)\n", ok ? "PASS" : "FAIL",
               fa.p[0].pad, err);
        failures += !ok;
        motion_engine_cpu.destroy(&e);
        motion_fields_free(&f);
        frame_free(&fa);
        free(a.y);
    }
    printf("%s: test_engine, %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
