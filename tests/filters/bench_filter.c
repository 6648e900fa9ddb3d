/* bench_filter: times the interpolation filter alone (stats.interp_seconds)
 * through the public API on frames held in memory.
 *   bench_filter INPUT [threads] [frames] [method] [block] [phases]
 * Every pair is estimated once and interpolated at t = k/phases for
 * k = 1..phases-1 (default 2: t = 1/2); prints ms per interpolated picture
 * (mean and the fastest pair; the pair's new_pair() work, i.e. the scene-cut
 * statistics, is spread over its pictures) and the motion-estimation ms per
 * pair. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "omcti.h"
#include "src/frame.h"
#include "src/io/io.h"

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_filter INPUT [threads] [frames] [method] [block] [phases]\n");
        return 2;
    }
    const int threads = argc > 2 ? atoi(argv[2]) : 1;
    const int maxf = argc > 3 ? atoi(argv[3]) : 10;
    const char *method = argc > 4 ? argv[4] : "omcti";
    const int block = argc > 5 ? atoi(argv[5]) : 16;
    const int phases = argc > 6 ? atoi(argv[6]) : 2;
    char err[512];
    VideoReader *r = NULL;
    if (video_reader_open(&r, argv[1], err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    OmctiPicture *pics = calloc((size_t)maxf, sizeof *pics);
    int n = 0;
    while (n < maxf) {
        OmctiPicture in;
        if (video_reader_read(r, &in, err, sizeof err) <= 0) break;
        const int cw = (in.width + 1) / 2, ch = (in.height + 1) / 2;
        const size_t ys = (size_t)in.width * in.height, cs = (size_t)cw * ch;
        uint8_t *buf = malloc(ys + 2 * cs);
        pics[n] = (OmctiPicture){ .data = { buf, buf + ys, buf + ys + cs },
                                  .stride = { in.width, cw, cw },
                                  .width = in.width, .height = in.height };
        picture_copy(&pics[n], &in);
        n++;
    }
    video_reader_close(&r);
    if (n < 2) return 1;
    const int w = pics[0].width, h = pics[0].height;
    OmctiSettings s;
    omcti_default_settings(&s);
    s.threads = threads;
    s.block = block;
    s.engine = "cpu";
    s.scd = OMCTI_SCD_NONE; /* time the motion-compensated path on every pair */
    s.method = omcti_method_from_name(method);
    OmctiContext *c = NULL;
    if (omcti_open(&c, &s, w, h, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    uint8_t *om = malloc((size_t)w * h + 2 * (size_t)cw * ch);
    OmctiPicture out = { .data = { om, om + w * h, om + w * h + cw * ch },
                         .stride = { w, cw, cw }, .width = w, .height = h };
    double best = 1e9, total = 0, me = 0;
    int count = 0;
    double np_total = 0, cpu_total = 0;
    for (int i = 0; i < n; i++) {
        OmctiStats a, b, a0;
        omcti_get_stats(c, &a0);
        omcti_send_picture(c, &pics[i]);
        if (!omcti_has_pair(c)) continue;
        omcti_get_stats(c, &a);
        const double c0 = cpu_seconds();
        for (int k = 1; k < phases; k++)
            omcti_interpolate(c, k, phases, &out);
        const double cpu = (cpu_seconds() - c0) / (phases - 1);
        omcti_get_stats(c, &b);
        /* the pair's share (scene-cut statistics, new_pair) spread over its pictures */
        const double np = a.interp_seconds - a0.interp_seconds;
        const double dt = (b.interp_seconds - a.interp_seconds + np) / (phases - 1);
        me = b.me_seconds;
        if (i >= 2) { /* the first pair warms up */
            np_total += np;
            cpu_total += cpu;
            total += dt;
            count++;
            if (dt < best) best = dt;
        }
    }
    OmctiStats st;
    omcti_get_stats(c, &st);
    printf("%s %dx%d block %d threads %d: filter %.2f ms/picture (mean of %d; new_pair %.2f "
           "ms/pair of it), %.2f ms best, picture() cpu time %.2f ms; ME %.2f ms/pair\n", method,
           w, h, block, threads, count ? 1e3 * total / count : 0, count,
           count ? 1e3 * np_total / count : 0, 1e3 * best, count ? 1e3 * cpu_total / count : 0,
           1e3 * me / (double)st.pairs);
    omcti_close(&c);
    return 0;
}
