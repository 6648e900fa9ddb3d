/* checkasm-style equivalence of the CUDA engine with the CPU engine: for
 * random, structured, flat (all ties) and, when given, real frames, at sizes
 * that are and are not multiples of the block, both searches, blocks
 * 8/16/32 and several ranges, the CUDA fields (vectors and SADs, both
 * directions) and the work counter must equal the CPU engine's bit for bit.
 * The naive one-thread-per-candidate kernel is checked too, as a second
 * independent GPU implementation of the full search.
 *
 * Exits 77 (skip) where no GPU can run the engine, saying why.
 *
 * Interpolation on the GPU (the filters' CUDA backend, kernels/cuda_filter.c) is
 * checked through the public API: a context with the cuda engine and one
 * with the cpu engine get the same pictures, and every in-between picture
 * (omcti, mcti, blend, repeat; phases 1/2, 1/3, 2/3, 2/5, 7/8; blocks
 * 8/16/32; full and diamond; odd sizes; a clip with a duplicate picture and
 * a cut) must be equal byte for byte, the scene-cut decisions too.
 *
 *   test_cuda_equiv [--quick | --tiny] [--interp-only] [--y4m FILE] [--y4m-cuts FILE]
 *   --quick: fewer cases (for compute-sanitizer memcheck); --tiny: only
 *   176x144 (for racecheck); --interp-only: skip the engine-level field
 *   comparisons; --y4m-cuts FILE (or OMCTI_TEST_Y4M_CUTS): a whole clip
 *   with scene cuts through omcti and mcti.
 *   OMCTI_TEST_Y4M=FILE adds the first frames of a real 8-bit 4:2:0 clip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omcti.h"
#include "kernels/cuda_engine.h"
#include "src/common.h"
#include "src/frame.h"
#include "src/motion/engine.h"
#include "src/motion/pyramid_block.h"
#include "tests/check.h"
#include "tests/cuda/cuda_test_util.h"

typedef struct Ctx {
    TestState ts;
    int threads;
    uint64_t serial;
    long pairs;
    long pictures;      /* interpolated pictures compared */
    unsigned long long cuts;
} Ctx;

static int compare_fields(const char *what, const MotionFields *ref, const MotionFields *got)
{
    int bad = 0;
    for (int dir = 0; dir < 2; dir++) {
        const MotionField *a = dir ? &ref->bwd : &ref->fwd, *b = dir ? &got->bwd : &got->fwd;
        for (int i = 0; i < a->bw * a->bh; i++) {
            if (a->mv[i].x == b->mv[i].x && a->mv[i].y == b->mv[i].y && a->sad[i] == b->sad[i])
                continue;
            if (bad++ < 3)
                fprintf(stderr,
                        "  %s %s block (%d,%d): cpu (%d,%d) sad %u, gpu (%d,%d) sad %u\n", what,
                        dir ? "bwd" : "fwd", i % a->bw, i / a->bw, a->mv[i].x, a->mv[i].y,
                        a->sad[i], b->mv[i].x, b->mv[i].y, b->sad[i]);
        }
    }
    if (ref->abs_diffs != got->abs_diffs) {
        fprintf(stderr, "  %s abs_diffs: cpu %llu gpu %llu\n", what,
                (unsigned long long)ref->abs_diffs, (unsigned long long)got->abs_diffs);
        bad++;
    }
    return bad;
}

/* Runs a clip of n frames (pairs 0-1, 1-2, ...) through both engines with
 * one configuration and compares every pair. */
static void run_clip(Ctx *c, const char *label, const Image *frames, int n, int block,
                     int range, OmctiSearch search, int serials)
{
    const int w = frames[0].w, h = frames[0].h;
    const int pad = motion_required_pad(block, range);
    MotionParams p = { w, h, block, range, search, c->threads, 0, NULL };
    char err[256] = "";
    MotionEngine *cpu = NULL, *gpu = NULL;
    OmctiFrame *f = calloc((size_t)n, sizeof *f);
    MotionFields fc, fg, fn;
    memset(&fc, 0, sizeof fc);
    memset(&fg, 0, sizeof fg);
    memset(&fn, 0, sizeof fn);
    const int nofields = motion_fields_alloc(&fc, w, h, block) < 0 ||
                         motion_fields_alloc(&fg, w, h, block) < 0 ||
                         motion_fields_alloc(&fn, w, h, block) < 0;
    CHECK(&c->ts, !nofields && f, "out of memory");
    int ok = !nofields && f;
    for (int i = 0; ok && i < n; i++) {
        ok = frame_from(&f[i], &frames[i], pad, serials ? ++c->serial : 0) == 0;
        f[i].number = i; /* the pyramid's pairs keep their final vectors */
    }
    if (ok) {
        int rc = motion_engine_cpu.create(&cpu, &p, err, sizeof err);
        CHECK(&c->ts, rc == 0, "cpu create: %s", err);
        rc = motion_engine_cuda.create(&gpu, &p, err, sizeof err);
        CHECK(&c->ts, rc == 0, "cuda create: %s", err);
        ok = cpu && gpu;
    }
    char what[160];
    for (int i = 0; ok && i + 1 < n; i++) {
        snprintf(what, sizeof what, "%s %dx%d %s B%d R%d pair %d", label, w, h,
                 omcti_search_name(search), block, range, i);
        int rc = motion_engine_cpu.estimate(cpu, &f[i], &f[i + 1], &fc, err, sizeof err);
        CHECK(&c->ts, rc == 0, "%s: cpu estimate: %s", what, err);
        memset(fg.fwd.mv, 0x5a, (size_t)fg.fwd.bw * fg.fwd.bh * sizeof *fg.fwd.mv);
        memset(fg.bwd.sad, 0x5a, (size_t)fg.bwd.bw * fg.bwd.bh * sizeof *fg.bwd.sad);
        rc = motion_engine_cuda.estimate(gpu, &f[i], &f[i + 1], &fg, err, sizeof err);
        CHECK(&c->ts, rc == 0, "%s: cuda estimate: %s", what, err);
        if (rc == 0) {
            const int bad = compare_fields(what, &fc, &fg);
            CHECK(&c->ts, bad == 0, "%s: %d mismatches (cuda vs cpu)", what, bad);
        }
        /* Every forced tile shape of the full search, on the mid size. */
        for (int k = 5; search == OMCTI_SEARCH_FULL && w == 353 && k <= 11; k += 3) {
            cuda_engine_set_tile(gpu, k);
            rc = motion_engine_cuda.estimate(gpu, &f[i], &f[i + 1], &fg, err, sizeof err);
            cuda_engine_set_tile(gpu, 0);
            CHECK(&c->ts, rc == 0, "%s: cuda estimate: %s", what, err);
            if (rc == 0) {
                const int bad = compare_fields(what, &fc, &fg);
                CHECK(&c->ts, bad == 0, "%s: %d mismatches (tile K%d vs cpu)", what, bad, k);
            }
        }
        if (search == OMCTI_SEARCH_FULL) {
            rc = cuda_engine_estimate_kind(gpu, &f[i], &f[i + 1], CUDA_KERNEL_NAIVE, &fn, err,
                                           sizeof err);
            CHECK(&c->ts, rc == 0, "%s: naive kernel: %s", what, err);
            if (rc == 0) {
                const int bad = compare_fields(what, &fc, &fn);
                CHECK(&c->ts, bad == 0, "%s: %d mismatches (naive kernel vs cpu)", what, bad);
            }
        }
        c->pairs++;
    }
    if (ok && serials) {
        /* Every frame went up once: the pairs share their middle frames. */
        CHECK(&c->ts, cuda_engine_uploads(gpu) == (unsigned long)n,
              "%s: %lu uploads for %d frames", label, cuda_engine_uploads(gpu), n);
    }
    motion_engine_cpu.destroy(&cpu);
    motion_engine_cuda.destroy(&gpu);
    if (f)
        for (int i = 0; i < n; i++)
            frame_free(&f[i]);
    free(f);
    motion_fields_free(&fc);
    motion_fields_free(&fg);
    motion_fields_free(&fn);
}

/* ------------------------------------------------ interpolation on the GPU */

static const int64_t interp_phases[][2] = { { 1, 2 }, { 1, 3 }, { 2, 3 }, { 2, 5 }, { 7, 8 } };

/* The whole library path, two contexts (engine cpu and cuda), same
 * settings: every output picture of every pair and phase must be equal
 * byte for byte, and so must the scene-cut decisions. The cuda context
 * builds its pictures on the GPU (search and interpolation there). */
static void run_interp(Ctx *c, const char *label, const YuvClip *clip, OmctiMethod method,
                       int block, int range, OmctiSearch search, int nphases)
{
    OmctiSettings s;
    omcti_default_settings(&s);
    s.method = method;
    s.search = search;
    s.block = block;
    s.range = range;
    s.threads = c->threads;
    char err[512] = "";
    OmctiContext *cc = NULL, *cg = NULL;
    s.engine = "cpu";
    int rc = omcti_open(&cc, &s, clip->w, clip->h, err, sizeof err);
    CHECK(&c->ts, rc == 0, "%s: open cpu: %s", label, err);
    s.engine = "cuda";
    rc = omcti_open(&cg, &s, clip->w, clip->h, err, sizeof err);
    CHECK(&c->ts, rc == 0, "%s: open cuda: %s", label, err);
    YuvClip out;
    if (!cc || !cg || yuv_clip_alloc(&out, clip->w, clip->h, 2) < 0) {
        omcti_close(&cc);
        omcti_close(&cg);
        return;
    }
    CHECK(&c->ts, !strcmp(omcti_engine_name(cg), "cuda"), "%s: engine %s", label,
          omcti_engine_name(cg));
    const size_t bytes = (size_t)clip->w * clip->h +
                         2 * (size_t)chroma_size(clip->w) * chroma_size(clip->h);
    for (int i = 0; i < clip->n; i++) {
        int r1 = omcti_send_picture(cc, &clip->pic[i]), r2 = omcti_send_picture(cg, &clip->pic[i]);
        CHECK(&c->ts, r1 == 0 && r2 == 0, "%s: send: %s / %s", label, omcti_last_error(cc),
              omcti_last_error(cg));
        if (r1 || r2 || i == 0)
            continue;
        CHECK(&c->ts, omcti_pair_is_cut(cc) == omcti_pair_is_cut(cg), "%s pair %d: cut %d vs %d",
              label, i - 1, omcti_pair_is_cut(cc), omcti_pair_is_cut(cg));
        for (int p = 0; p < nphases; p++) {
            const int64_t num = interp_phases[p][0], den = interp_phases[p][1];
            memset(out.buf[0], 0xa5, bytes);
            memset(out.buf[1], 0x5a, bytes); /* poison: every byte must be written */
            r1 = omcti_interpolate(cc, num, den, &out.pic[0]);
            r2 = omcti_interpolate(cg, num, den, &out.pic[1]);
            char what[256];
            snprintf(what, sizeof what, "%s %dx%d %s %s B%d R%d pair %d t=%lld/%lld", label,
                     clip->w, clip->h, omcti_method_name(method), omcti_search_name(search),
                     block, range, i - 1, (long long)num, (long long)den);
            CHECK(&c->ts, r1 == 0 && r2 == 0, "%s: interpolate: %s / %s", what,
                  omcti_last_error(cc), omcti_last_error(cg));
            if (r1 || r2)
                continue;
            const int bad = yuv_compare(what, &out.pic[0], &out.pic[1]);
            CHECK(&c->ts, bad == 0, "%s: %d pixels differ (cuda vs cpu)", what, bad);
            c->pictures++;
        }
    }
    OmctiStats a, b;
    omcti_get_stats(cc, &a);
    omcti_get_stats(cg, &b);
    CHECK(&c->ts, a.scene_cuts == b.scene_cuts, "%s: scene cuts %llu vs %llu", label,
          (unsigned long long)a.scene_cuts, (unsigned long long)b.scene_cuts);
    c->cuts += b.scene_cuts;
    yuv_clip_free(&out);
    omcti_close(&cc);
    omcti_close(&cg);
}

/* A clip with a cut (a second scene of other texture) and, at its end, a
 * duplicate picture (a stepwise source). */
static int make_mixed(YuvClip *m, int w, int h, uint32_t seed)
{
    YuvClip a, b;
    if (yuv_clip_make(&a, w, h, 4, CONTENT_MOTION, seed) < 0 ||
        yuv_clip_make(&b, w, h, 3, CONTENT_MOTION, seed * 7u + 12345u) < 0 ||
        yuv_clip_alloc(m, w, h, 8) < 0) {
        yuv_clip_free(&a);
        yuv_clip_free(&b);
        return -1;
    }
    const size_t bytes = (size_t)w * h + 2 * (size_t)chroma_size(w) * chroma_size(h);
    const int src[8][2] = { { 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 0 }, { 1, 1 }, { 1, 2 }, { 1, 2 } };
    for (int i = 0; i < 8; i++)
        memcpy(m->buf[i], (src[i][0] ? &b : &a)->buf[src[i][1]], bytes);
    yuv_clip_free(&a);
    yuv_clip_free(&b);
    return 0;
}

static void run_interp_size(Ctx *c, int w, int h, int quick)
{
    static const char *const names[3] = { "motion", "noise", "ties" };
    const OmctiMethod methods[4] = { OMCTI_METHOD_OMCTI, OMCTI_METHOD_MCTI, OMCTI_METHOD_BLEND,
                                     OMCTI_METHOD_REPEAT };
    for (int k = 0; k < 3; k++) {
        if (quick && k == CONTENT_NOISE)
            continue;
        YuvClip clip;
        if (yuv_clip_make(&clip, w, h, 3, k, 0x4321u + (uint32_t)(w + 3 * h)) == 0)
            for (int b = 8; b <= 32; b *= 2)
                for (int s = 0; s < 2; s++)
                    for (int m = 0; m < 4; m++) {
                        /* blend and repeat do not depend on block or search */
                        if (m >= 2 && (b != 16 || s))
                            continue;
                        run_interp(c, names[k], &clip, methods[m], b, b == 32 ? 24 : 16,
                                   (OmctiSearch)s, quick ? 2 : 5);
                    }
        yuv_clip_free(&clip);
    }
    /* a zoom: the camera model (filters/mc_camera.c) steers both engines'
     * stage A (cuda-mc-emul counts the pictures it takes part in) */
    YuvClip zoom;
    if (yuv_clip_make(&zoom, w, h, 3, CONTENT_ZOOM, 0x200u + (uint32_t)w) == 0)
        for (int b = 8; b <= 16; b *= 2)
            for (int m = 0; m < 2; m++)
                run_interp(c, "zoom", &zoom, methods[m], b, 16, OMCTI_SEARCH_PYRAMID,
                           quick ? 2 : 3);
    yuv_clip_free(&zoom);
    YuvClip mixed;
    if (make_mixed(&mixed, w, h, 0x99u + (uint32_t)w) == 0)
        for (int m = 0; m < 2; m++)
            run_interp(c, "mixed", &mixed, methods[m], 16, 16, OMCTI_SEARCH_FULL, 2);
    yuv_clip_free(&mixed);
}

static void run_size(Ctx *c, int w, int h, const int *ranges, int nranges, int quick)
{
    /* N frames; the pyramid search runs NP of the motion clip, numbered
     * 0 .. NP - 1, so that its chain (final vectors kept) and its restart
     * at picture 8 run on both engines */
    enum { N = 3, NP = PYR_CHAIN + 3 };
    Image im[3][NP];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < (k == CONTENT_MOTION ? NP : N); i++) {
            im[k][i].w = w;
            im[k][i].h = h;
            im[k][i].y = malloc((size_t)w * h);
            make_frame(&im[k][i], k, i, 0x1234u + (uint32_t)(w * 7 + h));
        }
    static const char *const names[3] = { "motion", "noise", "ties" };
    const int blocks[3] = { 8, 16, 32 };
    for (int bi = 0; bi < 3; bi++)
        for (int ri = 0; ri < nranges; ri++)
            for (int s = 0; s < OMCTI_SEARCH_COUNT; s++)
                for (int k = 0; k < 3; k++) {
                    /* the pyramid search does not depend on the range */
                    if (s == OMCTI_SEARCH_PYRAMID && ri)
                        continue;
                    if (quick && k == CONTENT_NOISE)
                        continue;
                    /* motion: a clip with serials (cache reuse);
                     * the others: one pair with serial 0 (no caching). */
                    const int n = k != CONTENT_MOTION ? 2 : s == OMCTI_SEARCH_PYRAMID ? NP : N;
                    run_clip(c, names[k], im[k], n, blocks[bi], ranges[ri], (OmctiSearch)s,
                             k == CONTENT_MOTION);
                }
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < (k == CONTENT_MOTION ? NP : N); i++)
            free(im[k][i].y);
}

/* A pan of (px, py) per frame over value noise at several scales: vectors
 * of the pyramid search far beyond the frames' padding (clamped reads). */
static void run_pan(Ctx *c, int w, int h, int px, int py)
{
    enum { N = 3, M = 200 };
    const int tw = w + 2 * M * (N - 1), th = h + 2 * M * (N - 1);
    uint8_t *tex = malloc((size_t)tw * th);
    Image im[N];
    if (!tex)
        exit(1);
    for (int y = 0; y < th; y++)
        for (int x = 0; x < tw; x++) {
            int v = 0;
            for (int cell = 48, amp = 96; cell >= 3; cell /= 4, amp /= 2) {
                const uint32_t hsh = (uint32_t)(x / cell) * 73856093u ^ (uint32_t)(y / cell) * 19349663u;
                v += (int)((hsh * 2654435761u) >> 24) * amp / 255;
            }
            tex[(size_t)y * tw + x] = (uint8_t)(v > 255 ? 255 : v);
        }
    for (int i = 0; i < N; i++) {
        im[i].w = w;
        im[i].h = h;
        im[i].y = malloc((size_t)w * h);
        if (!im[i].y)
            exit(1);
        const int ox = M * (N - 1) - i * px, oy = M * (N - 1) - i * py;
        for (int y = 0; y < h; y++)
            memcpy(im[i].y + (size_t)y * w, tex + (size_t)(y + oy) * tw + ox, (size_t)w);
    }
    for (int b = 8; b <= 32; b *= 2)
        run_clip(c, "pan", im, N, b, 16, OMCTI_SEARCH_PYRAMID, 1);
    for (int i = 0; i < N; i++)
        free(im[i].y);
    free(tex);
}

int main(int argc, char **argv)
{
    int quick = 0, tiny = 0, interp_only = 0;
    const char *y4m = getenv("OMCTI_TEST_Y4M"), *cuts = getenv("OMCTI_TEST_Y4M_CUTS");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--tiny"))
            quick = tiny = 1;
        else if (!strcmp(argv[i], "--interp-only"))
            interp_only = 1;
        else if (!strcmp(argv[i], "--y4m-cuts") && i + 1 < argc)
            cuts = argv[++i];
        else if (!strcmp(argv[i], "--y4m") && i + 1 < argc)
            y4m = argv[++i];
    }
    char err[256] = "";
    if (!motion_engine_cuda.available(err, sizeof err)) {
        printf("SKIP: %s\n", err);
        return 77;
    }
    Ctx c = { { 0, 0 }, 0, 0, 0, 0, 0 };
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c.threads = cores > 0 ? (int)cores : 1;
    {
        MotionEngine *g = NULL;
        MotionParams p = { 64, 64, 16, 16, OMCTI_SEARCH_FULL, 1, 0, NULL };
        if (motion_engine_cuda.create(&g, &p, err, sizeof err) == 0) {
            printf("device: %s\n", cuda_engine_device_name(g));
            motion_engine_cuda.destroy(&g);
        }
    }

    const int small_ranges[] = { 1, 2, 5, 16, 64 };
    const int mid_ranges[] = { 3, 7, 16, 33 };
    const int big_ranges[] = { 16, 24 };
    if (!interp_only)
        run_size(&c, 176, 144, small_ranges, tiny ? 3 : 5, quick);
    if (!tiny && !interp_only)
        run_size(&c, 353, 289, mid_ranges, 4, quick);
    if (!quick && !interp_only)
        run_size(&c, 1920, 1080, big_ranges, 2, 1);
    if (!interp_only)
        run_pan(&c, 640, 360, 90, -37);
    if (!quick && !interp_only)
        run_pan(&c, 1920, 1080, 120, 45);

    if (y4m && !interp_only) {
        Image fr[3];
        const int n = read_y4m(y4m, fr, 3);
        CHECK(&c.ts, n >= 2, "cannot read 2 frames of %s", y4m);
        if (n >= 2) {
            const int blocks[3] = { 8, 16, 32 };
            for (int bi = 0; bi < 3; bi++)
                for (int s = 0; s < OMCTI_SEARCH_COUNT; s++)
                    run_clip(&c, "y4m", fr, n, blocks[bi], 16, (OmctiSearch)s, 1);
            run_clip(&c, "y4m", fr, n, 16, 32, OMCTI_SEARCH_FULL, 1);
            run_clip(&c, "y4m", fr, n, 16, 64, OMCTI_SEARCH_DIAMOND, 1);
        }
        for (int i = 0; i < n; i++)
            free(fr[i].y);
    }
    /* Interpolation on the GPU against the CPU filters, whole pictures. */
    run_interp_size(&c, 176, 144, quick);
    if (!tiny) {
        run_interp_size(&c, 353, 289, quick);
        run_interp_size(&c, 33, 17, quick);
    }
    if (!quick) {
        YuvClip big;
        if (yuv_clip_make(&big, 1920, 1080, 3, CONTENT_MOTION, 0x1080u) == 0)
            for (int m = 0; m < 4; m++)
                run_interp(&c, "motion", &big, (OmctiMethod)m, 16, 16, OMCTI_SEARCH_FULL, 5);
        yuv_clip_free(&big);
    }
    if (y4m) {
        YuvClip clip;
        const int n = yuv_clip_read(&clip, y4m, 4, 0);
        CHECK(&c.ts, n >= 2, "cannot read 2 pictures of %s", y4m);
        for (int b = 8; n >= 2 && b <= 32; b *= 2)
            for (int s = 0; s < 2; s++)
                for (int m = 0; m < 2; m++)
                    run_interp(&c, "y4m", &clip, (OmctiMethod)m, b, 16, (OmctiSearch)s,
                               quick ? 2 : 5);
        if (n >= 2)
            for (int m = 2; m < 4; m++)
                run_interp(&c, "y4m", &clip, (OmctiMethod)m, 16, 16, OMCTI_SEARCH_FULL, 5);
        yuv_clip_free(&clip);
    }
    if (cuts) {
        /* A whole real clip with scene cuts (foreman_qcif: 16 in 100
         * frames): the GPU's cut decisions and held pictures. */
        YuvClip clip;
        const int n = yuv_clip_read(&clip, cuts, 300, 0);
        CHECK(&c.ts, n >= 2, "cannot read 2 pictures of %s", cuts);
        for (int m = 0; n >= 2 && m < 2; m++)
            for (int sr = 0; sr < 2; sr++)
                run_interp(&c, "cuts", &clip, (OmctiMethod)m, 16, 16, (OmctiSearch)sr, 2);
        yuv_clip_free(&clip);
    }
    printf("%ld pairs compared\n", c.pairs);
    printf("%ld interpolated pictures compared (%llu scene-cut pairs)\n", c.pictures, c.cuts);
    return test_finish(&c.ts, "cuda-equiv");
}
