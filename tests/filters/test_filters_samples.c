/* The drop-odd-frames protocol on the shared clips, through the public API:
 * omcti must beat repetition and blending on the clips with motion, stay
 * within 0.2 dB of the best on the cut and screen clips, and never fall
 * below mcti. Frame counts are small so that the suite stays fast on a
 * 2-core machine. Exits 77 (skip) without the clips or without FFmpeg. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omcti.h"
#include "src/cli/metrics.h"
#include "src/frame.h"
#include "src/io/io.h"
#include "tests/check.h"

#if OMCTI_HAVE_FFMPEG   /* without FFmpeg the test only says why it skips */
enum { M_OMCTI, M_MCTI, M_BLEND, M_REPEAT, M_N };
static const OmctiMethod methods[M_N] = {
    OMCTI_METHOD_OMCTI, OMCTI_METHOD_MCTI, OMCTI_METHOD_BLEND, OMCTI_METHOD_REPEAT,
};

typedef struct Scores {
    double psnr[M_N], ssim[M_N];
    int frames;
} Scores;

static int alloc_pic(OmctiPicture *p, uint8_t **mem, int w, int h)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    *mem = malloc((size_t)w * h + 2 * (size_t)cw * ch);
    if (!*mem) return -1;
    *p = (OmctiPicture){ .data = { *mem, *mem + w * h, *mem + w * h + cw * ch },
                         .stride = { w, cw, cw }, .width = w, .height = h };
    return 0;
}

static int run_clip(const char *path, int nframes, Scores *sc)
{
    char err[512];
    VideoReader *r = NULL;
    memset(sc, 0, sizeof *sc);
    if (video_reader_open(&r, path, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    const int w = video_reader_info(r)->width, h = video_reader_info(r)->height;
    OmctiContext *c[M_N] = {0};
    OmctiPicture odd, out;
    uint8_t *m1, *m2;
    alloc_pic(&odd, &m1, w, h);
    alloc_pic(&out, &m2, w, h);
    for (int i = 0; i < M_N; i++) {
        OmctiSettings s;
        omcti_default_settings(&s);
        s.method = methods[i];
        s.engine = "cpu";
        if (omcti_open(&c[i], &s, w, h, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            return -1;
        }
    }
    for (int n = 0; n < nframes; n++) {
        OmctiPicture in;
        if (video_reader_read(r, &in, err, sizeof err) <= 0) break;
        if (n % 2) {
            picture_copy(&odd, &in);
            continue;
        }
        for (int i = 0; i < M_N; i++) {
            omcti_send_picture(c[i], &in);
            if (!omcti_has_pair(c[i])) continue;
            omcti_interpolate(c[i], 1, 2, &out);
            PictureMetrics pm;
            metrics_picture(&odd, &out, &pm);
            sc->psnr[i] += pm.psnr_y;
            sc->ssim[i] += pm.ssim_y;
        }
        if (n >= 2) sc->frames++;
    }
    for (int i = 0; i < M_N; i++) {
        if (sc->frames) {
            sc->psnr[i] /= sc->frames;
            sc->ssim[i] /= sc->frames;
        }
        omcti_close(&c[i]);
    }
    video_reader_close(&r);
    free(m1);
    free(m2);
    return sc->frames > 0 ? 0 : -1;
}
#endif

int main(void)
{
#if !OMCTI_HAVE_FFMPEG
    printf("skip: the clips are Matroska/FFV1 and need the FFmpeg reader\n");
    return 77;
#else
    /* The shared clips (tests/meson.build sets OMCTI_SAMPLES), or the
     * project's own samples/clip.mkv where they are absent. */
    const char *dir = getenv("OMCTI_SAMPLES");
    typedef struct ClipSpec { const char *name; int frames; int motion; } ClipSpec;
    static const ClipSpec shared[] = {
        { "mobile_cif", 15, 1 },       { "foreman_cif", 21, 1 },
        { "flower_720p", 9, 1 },       { "signing_640x480", 21, 1 },
        { "foreman_qcif", 41, 0 },     { "screen_1024x768", 31, 0 },
    }, own[] = { { "clip", 21, 1 } };
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/mobile_cif.mkv", dir ? dir : ".");
    const int have_shared = dir && !access(probe, R_OK);
    snprintf(probe, sizeof probe, "%s/clip.mkv", dir ? dir : ".");
    if (!have_shared && (!dir || access(probe, R_OK))) {
        printf("skip: no clips in OMCTI_SAMPLES (%s)\n", dir ? dir : "unset");
        return 77;
    }
    const ClipSpec *clips = have_shared ? shared : own;
    const size_t nclips = have_shared ? sizeof shared / sizeof *shared : 1;
    TestState ts = {0};
    for (size_t i = 0; i < nclips; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.mkv", dir, clips[i].name);
        Scores s;
        if (run_clip(path, clips[i].frames, &s) < 0) {
            CHECK(&ts, 0, "%s: could not run", clips[i].name);
            continue;
        }
        printf("%-16s %2d frames  PSNR-Y omcti %.3f mcti %.3f blend %.3f repeat %.3f"
               "  SSIM-Y omcti %.4f mcti %.4f blend %.4f repeat %.4f\n",
               clips[i].name, s.frames, s.psnr[M_OMCTI], s.psnr[M_MCTI], s.psnr[M_BLEND],
               s.psnr[M_REPEAT], s.ssim[M_OMCTI], s.ssim[M_MCTI], s.ssim[M_BLEND],
               s.ssim[M_REPEAT]);
        if (clips[i].motion) {
            CHECK(&ts, s.psnr[M_OMCTI] > s.psnr[M_REPEAT] && s.psnr[M_OMCTI] > s.psnr[M_BLEND],
                  "%s: omcti PSNR-Y not above repeat and blend", clips[i].name);
            CHECK(&ts, s.ssim[M_OMCTI] > s.ssim[M_REPEAT] && s.ssim[M_OMCTI] > s.ssim[M_BLEND],
                  "%s: omcti SSIM-Y not above repeat and blend", clips[i].name);
        } else {
            double best = s.psnr[M_MCTI];
            for (int m = M_BLEND; m < M_N; m++)
                if (s.psnr[m] > best) best = s.psnr[m];
            CHECK(&ts, s.psnr[M_OMCTI] >= best - 0.2, "%s: omcti %.3f more than 0.2 dB below %.3f",
                  clips[i].name, s.psnr[M_OMCTI], best);
        }
        CHECK(&ts, s.psnr[M_OMCTI] >= s.psnr[M_MCTI], "%s: omcti %.3f below mcti %.3f",
              clips[i].name, s.psnr[M_OMCTI], s.psnr[M_MCTI]);
    }
    return test_finish(&ts, "test_filters_samples");
#endif
}
