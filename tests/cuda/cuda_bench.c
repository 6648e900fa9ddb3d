/* Benchmark of the CUDA engine against the CPU engine on one clip.
 *
 *   cuda_bench [--y4m FILE] [--frames N] [--block B] [--range R]
 *              [--reps N] [--cpu-threads LIST] [--tile K] [--no-cpu]
 *
 * Kernel time: CUDA events around each launch (both directions of a pair),
 * after warm-up launches, median and minimum of --reps. Engine time: host
 * clock around estimate() over the clip's pairs, frames uploaded as in a
 * real run (each frame once, the cache holding the shared one). CPU engine:
 * the same pairs through estimate() at each thread count of the list.
 * Without --y4m a synthetic 1920x1080 clip is used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filters/filter.h"
#include "kernels/cuda_device.h"
#include "kernels/cuda_engine.h"
#include "kernels/cuda_filter.h"
#include "src/common.h"
#include "src/frame.h"
#include "src/motion/engine.h"
#include "tests/cuda/cuda_test_util.h"

static int cmp_f(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_d(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

/* Interpolation (OMCTI, t = 1/2) of the first pair: GPU kernels (events),
 * the GPU backend's whole picture() (kernels, download, copy into a
 * pageable picture; host clock), the upload of a new frame from pinned
 * frames, and the CPU filter at each thread count. Whole 4:2:0 pictures. */
static int bench_interp(const char *y4m, int block, int range, int reps, const char *threads,
                        char *table, size_t *tl, size_t tsize)
{
    char err[256] = "";
    YuvClip clip;
    if (y4m ? yuv_clip_read(&clip, y4m, 2, 0) < 2
            : yuv_clip_make(&clip, 1920, 1080, 2, CONTENT_MOTION, 42) < 0) {
        yuv_clip_free(&clip);
        fprintf(stderr, "cuda_bench: cannot make the pictures for the filter\n");
        return -1;
    }
    const int w = clip.w, h = clip.h;
    OmctiFrame f[2];
    MotionFields mf;
    YuvClip out;
    memset(&mf, 0, sizeof mf);
    const int pad = motion_required_pad(block, range) + 32; /* as the context */
    if (frame_alloc(&f[0], w, h, pad) < 0 || frame_alloc(&f[1], w, h, pad) < 0 ||
        motion_fields_alloc(&mf, w, h, block) < 0 || yuv_clip_alloc(&out, w, h, 1) < 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        frame_copy_in(&f[i], &clip.pic[i]);
        f[i].serial = (uint64_t)i + 1;
    }
    /* A device as a context has it: the engine searches there and the
     * filter's CUDA backend renders there, from the same frame store. */
    Device dev = { NULL, NULL };
    MotionParams p = { w, h, block, range, OMCTI_SEARCH_FULL, 16, 0, &dev };
    MotionEngine *g = NULL;
    void *fb = NULL;
    const FilterParams gp = { w, h, block, range, 16, OMCTI_SCD_AUTO, 1.0, &dev, 0 };
    int rc = device_open(&dev, &cuda_device_type, 0, err, sizeof err);
    if (rc == 0)
        rc = motion_engine_cuda.create(&g, &p, err, sizeof err);
    if (rc == 0)
        rc = filter_backend_cuda.init(&fb, &gp, OMCTI_METHOD_OMCTI, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "cuda_bench: %s\n", err);
        return -1;
    }
    double *t = malloc(sizeof *t * (size_t)reps);
    float *mv = malloc(sizeof *mv * (size_t)reps), *mr = malloc(sizeof *mr * (size_t)reps);
    /* estimate() with the upload of one new frame (all planes), staged
     * (frames not pinned), then pinned in place as the context does */
    for (int pinned = 0; pinned < 2; pinned++) {
        if (pinned)
            for (int i = 0; i < 2; i++)
                dev.type->register_frame(dev.priv, &f[i]);
        for (int i = 0; i < reps; i++) {
            f[1].serial = 1000 + (uint64_t)i + (uint64_t)pinned * 100000;
            const double t0 = now_seconds();
            if (motion_engine_cuda.estimate(g, &f[0], &f[1], &mf, err, sizeof err) < 0) {
                fprintf(stderr, "cuda_bench: %s\n", err);
                return -1;
            }
            t[i] = (now_seconds() - t0) * 1e3;
        }
        *tl += (size_t)snprintf(table + *tl, tsize - *tl, "%-34s %10.4f\n",
                                pinned ? "cuda estimate()+YUV upload, pinned"
                                       : "cuda estimate()+YUV upload, staged",
                                median_d(t, reps));
    }
    const FilterPair gpr = { &f[0], &f[1], &mf, { 0, 0, 0, 0 }, 0, { 0, 0 }, 0, 0 };
    McSceneStats st;
    if (filter_backend_cuda.stats(fb, &gpr, &st, err, sizeof err) < 0 ||
        filter_backend_cuda.picture(fb, &gpr, 1, 2, &out.pic[0], err, sizeof err) < 0 ||
        cuda_filter_time(fb, &gpr, 1, 2, reps, mv, mr, err, sizeof err) < 0) {
        fprintf(stderr, "cuda_bench: %s\n", err);
        return -1;
    }
    qsort(mv, (size_t)reps, sizeof *mv, cmp_f);
    qsort(mr, (size_t)reps, sizeof *mr, cmp_f);
    *tl += (size_t)snprintf(table + *tl, tsize - *tl,
                            "%-34s %10.4f\n%-34s %10.4f\n", "cuda omcti vectors (kernels A+C)",
                            (double)mv[reps / 2], "cuda omcti render (kernel, Y+U+V)",
                            (double)mr[reps / 2]);
    for (int i = 0; i < reps; i++) {
        const double t0 = now_seconds();
        if (filter_backend_cuda.picture(fb, &gpr, 1, 2, &out.pic[0], err, sizeof err) < 0) {
            fprintf(stderr, "cuda_bench: %s\n", err);
            return -1;
        }
        t[i] = (now_seconds() - t0) * 1e3;
    }
    *tl += (size_t)snprintf(table + *tl, tsize - *tl, "%-34s %10.4f\n",
                            "cuda omcti backend picture() whole", median_d(t, reps));
    filter_backend_cuda.uninit(&fb);
    motion_engine_cuda.destroy(&g);
    device_close(&dev);
    /* the CPU filter, same pair and fields */
    char list[128];
    snprintf(list, sizeof list, "%s", threads);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        const FilterParams fp = { w, h, block, range, atoi(tok), OMCTI_SCD_AUTO, 1.0, NULL, 0 };
        void *priv = NULL;
        const FilterPair pr = { &f[0], &f[1], &mf, { 0, 0, 0, 0 }, 0, { 0, 0 }, 0, 0 };
        if (fp.threads < 1 || filter_omcti.init(&priv, &fp, err, sizeof err) < 0)
            continue;
        filter_omcti.new_pair(priv, &pr, err, sizeof err);
        const int n = fp.threads == 1 ? 5 : 20;
        filter_omcti.picture(priv, &pr, 1, 2, &out.pic[0], err, sizeof err); /* warm-up */
        for (int i = 0; i < n; i++) {
            const double t0 = now_seconds();
            filter_omcti.picture(priv, &pr, 1, 2, &out.pic[0], err, sizeof err);
            t[i] = (now_seconds() - t0) * 1e3;
        }
        char name[64];
        snprintf(name, sizeof name, "cpu omcti picture(), %d threads", fp.threads);
        *tl += (size_t)snprintf(table + *tl, tsize - *tl, "%-34s %10.4f\n", name, median_d(t, n));
        filter_omcti.uninit(&priv);
    }
    free(t);
    free(mv);
    free(mr);
    yuv_clip_free(&out);
    yuv_clip_free(&clip);
    motion_fields_free(&mf);
    frame_free(&f[0]);
    frame_free(&f[1]);
    return 0;
}

static const char *search_name(OmctiSearch s)
{
    return omcti_search_name(s);
}

int main(int argc, char **argv)
{
    const char *y4m = NULL;
    int nframes = 12, block = 16, range = 16, reps = 200, tile = 0, cpu = 1;
    char threads_list[128] = "1,16";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-cpu")) {
            cpu = 0;
            continue;
        }
        if (!v) {
            fprintf(stderr, "cuda_bench: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--y4m")) y4m = v;
        else if (!strcmp(a, "--frames")) nframes = atoi(v);
        else if (!strcmp(a, "--block")) block = atoi(v);
        else if (!strcmp(a, "--range")) range = atoi(v);
        else if (!strcmp(a, "--reps")) reps = atoi(v);
        else if (!strcmp(a, "--tile")) tile = atoi(v);
        else if (!strcmp(a, "--cpu-threads")) snprintf(threads_list, sizeof threads_list, "%s", v);
        else {
            fprintf(stderr, "cuda_bench: unknown option %s\n", a);
            return 2;
        }
        i++;
    }
    if (nframes < 2 || reps < 1) {
        fprintf(stderr, "cuda_bench: need --frames >= 2 and --reps >= 1\n");
        return 2;
    }

    char err[256] = "";
    if (!motion_engine_cuda.available(err, sizeof err)) {
        printf("SKIP: %s\n", err);
        return 77;
    }

    Image *im = calloc((size_t)nframes, sizeof *im);
    int n = 0;
    if (y4m) {
        n = read_y4m(y4m, im, nframes);
        if (n < 2) {
            fprintf(stderr, "cuda_bench: cannot read 2 frames of %s\n", y4m);
            return 1;
        }
    } else {
        for (n = 0; n < nframes; n++) {
            im[n].w = 1920;
            im[n].h = 1080;
            im[n].y = malloc(1920 * 1080);
            make_frame(&im[n], CONTENT_MOTION, n, 42);
        }
    }
    const int w = im[0].w, h = im[0].h;
    const int pad = motion_required_pad(block, range);
    OmctiFrame *f = calloc((size_t)n, sizeof *f);
    for (int i = 0; i < n; i++) {
        if (frame_from(&f[i], &im[i], pad, (uint64_t)i + 1) < 0) {
            fprintf(stderr, "cuda_bench: out of memory\n");
            return 1;
        }
        f[i].number = i; /* as a conversion numbers them (the pyramid's chain) */
    }
    MotionFields mf;
    if (motion_fields_alloc(&mf, w, h, block) < 0)
        return 1;
    const int pairs = n - 1;
    printf("clip: %s, %dx%d, %d frames; block %d, range %d\n", y4m ? y4m : "synthetic", w, h,
           n, block, range);

    char table[4096];
    size_t tl = 0;
    tl += (size_t)snprintf(table + tl, sizeof table - tl,
                           "%-26s %10s %10s %12s %14s\n", "engine", "ms/pair", "min ms",
                           "pairs/s", "T absdiff/s");

    float *ms = malloc(sizeof *ms * (size_t)reps);
    double *wall = malloc(sizeof *wall * (size_t)pairs);
    for (int s = 0; s < OMCTI_SEARCH_COUNT; s++) {
        const OmctiSearch search = (OmctiSearch)s;
        MotionParams p = { w, h, block, range, search, 1, 0, NULL };
        MotionEngine *g = NULL;
        if (motion_engine_cuda.create(&g, &p, err, sizeof err) < 0) {
            fprintf(stderr, "cuda_bench: %s\n", err);
            return 1;
        }
        if (s == 0)
            printf("device: %s\n", cuda_engine_device_name(g));
        cuda_engine_set_tile(g, tile);

        /* Whole estimate() per pair over the clip, frames uploaded once. */
        uint64_t absd = 0;
        for (int rep = 0; rep < 2; rep++) { /* first pass warms up */
            for (int i = 0; i < pairs; i++) {
                const double t0 = now_seconds();
                if (motion_engine_cuda.estimate(g, &f[i], &f[i + 1], &mf, err, sizeof err) < 0) {
                    fprintf(stderr, "cuda_bench: %s\n", err);
                    return 1;
                }
                wall[i] = (now_seconds() - t0) * 1e3;
                absd += rep ? mf.abs_diffs : 0;
            }
            /* A new engine pass must upload again: forget the cache by
             * bumping the serials. */
            for (int i = 0; i < n; i++)
                f[i].serial += (uint64_t)n;
        }
        qsort(wall, (size_t)pairs, sizeof *wall, cmp_d);
        const double absd_pair = (double)absd / pairs;

        /* The pyramid search: the engine's own kernels (CUDA_KERNEL_AUTO). */
        const int kinds[2] = { s == 0 ? CUDA_KERNEL_FULL : s == 1 ? CUDA_KERNEL_DIAMOND : CUDA_KERNEL_AUTO,
                               CUDA_KERNEL_NAIVE };
        for (int k = 0; k < (s == 0 ? 2 : 1); k++) {
            if (cuda_engine_time_kernel(g, &f[0], &f[1], kinds[k], 20, reps, ms, err,
                                        sizeof err) < 0) {
                fprintf(stderr, "cuda_bench: %s\n", err);
                return 1;
            }
            qsort(ms, (size_t)reps, sizeof *ms, cmp_f);
            const double med = ms[reps / 2];
            char name[64];
            snprintf(name, sizeof name, "cuda %s kernel%s", search_name(search),
                     kinds[k] == CUDA_KERNEL_NAIVE ? " (naive)" : tile && !s ? " (tile set)" : "");
            tl += (size_t)snprintf(table + tl, sizeof table - tl,
                                   "%-26s %10.4f %10.4f %12.0f %14.2f\n", name, med, ms[0],
                                   1e3 / med, absd_pair / (med * 1e-3) / 1e12);
        }
        char name[64];
        snprintf(name, sizeof name, "cuda %s estimate()", search_name(search));
        tl += (size_t)snprintf(table + tl, sizeof table - tl,
                               "%-26s %10.4f %10.4f %12.0f %14.2f\n", name, wall[pairs / 2],
                               wall[0], 1e3 / wall[pairs / 2],
                               absd_pair / (wall[pairs / 2] * 1e-3) / 1e12);
        motion_engine_cuda.destroy(&g);

        /* CPU engine on the same pairs. */
        char list[128];
        snprintf(list, sizeof list, "%s", cpu ? threads_list : "");
        for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
            p.threads = atoi(t);
            MotionEngine *c = NULL;
            if (p.threads < 1 || motion_engine_cpu.create(&c, &p, err, sizeof err) < 0) {
                fprintf(stderr, "cuda_bench: cpu: %s\n", err);
                return 1;
            }
            /* At most 4 pairs for one thread: full search there is slow. */
            const int np = p.threads == 1 && pairs > 4 ? 4 : pairs;
            motion_engine_cpu.estimate(c, &f[0], &f[1], &mf, err, sizeof err); /* warm-up */
            for (int i = 0; i < np; i++) {
                const double t0 = now_seconds();
                motion_engine_cpu.estimate(c, &f[i], &f[i + 1], &mf, err, sizeof err);
                wall[i] = (now_seconds() - t0) * 1e3;
            }
            qsort(wall, (size_t)np, sizeof *wall, cmp_d);
            snprintf(name, sizeof name, "cpu %s, %d thread%s", search_name(search), p.threads,
                     p.threads == 1 ? "" : "s");
            tl += (size_t)snprintf(table + tl, sizeof table - tl,
                                   "%-26s %10.4f %10.4f %12.0f %14.2f\n", name, wall[np / 2],
                                   wall[0], 1e3 / wall[np / 2],
                                   absd_pair / (wall[np / 2] * 1e-3) / 1e12);
            motion_engine_cpu.destroy(&c);
        }
    }
    printf("\n%s", table);
    char itable[2048];
    size_t itl = (size_t)snprintf(itable, sizeof itable, "\ninterpolation, %s, first pair, t = 1/2:\n%-34s %10s\n",
                                  y4m ? y4m : "synthetic", "step", "ms (median)");
    if (bench_interp(y4m, block, range, reps > 100 ? 100 : reps, cpu ? threads_list : "",
                     itable, &itl, sizeof itable) < 0)
        return 1;
    printf("%s", itable);
    free(ms);
    free(wall);
    motion_fields_free(&mf);
    for (int i = 0; i < n; i++) {
        frame_free(&f[i]);
        free(im[i].y);
    }
    free(f);
    free(im);
    return 0;
}
