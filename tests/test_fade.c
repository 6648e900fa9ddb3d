/* Brightness compensation (src/fade.h): which pairs are fades, the scaled
 * copies and the level of each phase; and through the library, a moving
 * picture that fades is rebuilt as well as one that does not. Linear mixes
 * (fade_linear_mix()): which three pictures are one, and a cross-dissolve
 * blended through the library. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "omcti.h"
#include "src/fade.h"
#include "src/frame.h"
#include "tests/check.h"
#include "tests/context_util.h"
#include "tests/texture.h"

/* The smooth texture, shifted so that negative coordinates work too. */
static int texture(int x, int y)
{
    return smooth_texture(x + 1024, y + 1024);
}

/* 16 + (v - 16) * num / den, the fade of a level. */
static uint8_t faded(int v, int num, int den)
{
    return (uint8_t)(16 + (v - 16) * num / den);
}

/* Luma = texture moved by (ox, oy), faded by num/den; chroma 128 + a small
 * texture, faded about 128. */
static void fill_picture(OmctiPicture *p, int ox, int oy, int num, int den)
{
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++)
            p->data[0][y * p->stride[0] + x] = faded(texture(x - ox, y - oy), num, den);
    for (int c = 1; c < 3; c++)
        for (int y = 0; y < (p->height + 1) / 2; y++)
            for (int x = 0; x < (p->width + 1) / 2; x++) {
                const int v = 128 + (texture(x - ox / 2 + 99 * c, y - oy / 2) - 104) / 4;
                p->data[c][y * p->stride[c] + x] = (uint8_t)(128 + (v - 128) * num / den);
            }
}

static void fill_frame(OmctiFrame *f, int ox, int oy, int num, int den)
{
    OmctiPicture p;
    frame_as_picture(f, &p);
    fill_picture(&p, ox, oy, num, den);
    frame_pad_edges(f);
}

static FadeGain measure(const OmctiFrame *p, const OmctiFrame *n, int gx, int gy)
{
    const ActiveArea full = { 0, 0, 0, 0 };
    return fade_measure(p, n, gx, gy, &full);
}

static void test_measure(TestState *ts)
{
    const int w = 320, h = 192;
    OmctiFrame p, n;
    if (frame_alloc(&p, w, h, 32) < 0 || frame_alloc(&n, w, h, 32) < 0) {
        CHECK(ts, 0, "out of memory");
        return;
    }
    fill_frame(&p, 0, 0, 1, 1);

    /* a fade: every region 3/4 as bright */
    fill_frame(&n, 0, 0, 3, 4);
    FadeGain g = measure(&p, &n, 0, 0);
    CHECK(ts, g.active && 4 * g.ln > 3 * g.lp - g.lp / 50 && 4 * g.ln < 3 * g.lp + g.lp / 50,
          "a fade to 3/4: active %d, levels %lld %lld", g.active, (long long)g.lp,
          (long long)g.ln);
    /* the same fade under a pan: found with the camera's vector */
    fill_frame(&n, -12, 4, 3, 4);
    CHECK(ts, measure(&p, &n, -12, 4).active, "a fade under a pan, with the camera vector");
    /* 1/64 darker: noise, no fade */
    fill_frame(&n, 0, 0, 63, 64);
    CHECK(ts, !measure(&p, &n, 0, 0).active, "a change of 1/64 taken for a fade");

    /* a pan onto brighter content: brighter on average (the content that
     * enters), but no fade, with the camera vector or without */
    OmctiPicture q;
    frame_as_picture(&n, &q);
    fill_frame(&n, -32, 0, 1, 1);
    for (int y = 0; y < h; y++)
        for (int x = w - 32; x < w; x++)
            q.data[0][y * q.stride[0] + x] = 235;
    frame_pad_edges(&n);
    CHECK(ts, !measure(&p, &n, -32, 0).active,
          "a pan onto bright content, compared where the content is the same, is a fade");
    CHECK(ts, !measure(&p, &n, 0, 0).active,
          "a pan onto bright content, compared at the zero vector, is a fade");

    /* a light switched on in one corner */
    fill_frame(&n, 0, 0, 1, 1);
    for (int y = 0; y < h / 2; y++)
        for (int x = 0; x < w / 2; x++)
            q.data[0][y * q.stride[0] + x] = (uint8_t)(q.data[0][y * q.stride[0] + x] + 60);
    frame_pad_edges(&n);
    CHECK(ts, !measure(&p, &n, 0, 0).active, "a light in one corner is a fade");

    /* nearly black pictures have no level to compare */
    fill_frame(&p, 0, 0, 1, 64);
    fill_frame(&n, 0, 0, 1, 128);
    CHECK(ts, !measure(&p, &n, 0, 0).active, "a change of near-black pictures is a fade");

    /* the scaled copies: prev at level 100, next 50 -> both at 75: prev
     * by 3/4, next by 3/2, padding included */
    const FadeGain f = { 1, 100, 50, 0 };
    fill_frame(&p, 0, 0, 1, 1);
    for (int side = 0; side < 2; side++) {
        fade_scale_frame(&f, side, &n, &p);
        const double gain = side ? 1.5 : 0.75;
        int bad = 0;
        for (int k = 0; k < 3; k++) {
            const int zero = k ? 128 : 16;
            for (int y = -p.p[k].pad; y < p.p[k].h + p.p[k].pad; y++)
                for (int x = -p.p[k].pad; x < p.p[k].w + p.p[k].pad; x++) {
                    const int a = p.p[k].data[y * p.p[k].stride + x];
                    const int b = n.p[k].data[y * n.p[k].stride + x];
                    double want = zero + (a - zero) * gain;
                    want = want < 0 ? 0 : want > 255 ? 255 : want;
                    bad += fabs(b - want) > 0.5 + 1e-9;
                }
        }
        CHECK(ts, bad == 0, "%s scaled by %g about black: %d samples off",
              side ? "next" : "prev", gain, bad);
    }

    /* the phases: t = 1/2 is the mean level itself; t = 1/4 is
     * (3/4 * 100 + 1/4 * 50) / 75 = 7/6 of it */
    OmctiPicture pic;
    frame_as_picture(&n, &pic);
    n.p[0].data[0] = 91;
    fade_to_phase(&f, 1, 2, &pic);
    CHECK(ts, n.p[0].data[0] == 91, "t = 1/2 rescaled: %d", n.p[0].data[0]);
    fade_to_phase(&f, 1, 4, &pic);
    CHECK(ts, n.p[0].data[0] == 104, "t = 1/4: 91 -> %d, want 16 + 75 * 7/6 = 103.5 -> 104",
          n.p[0].data[0]);
    frame_free(&p);
    frame_free(&n);
}

/* A still shot that is brighter towards its top (stands above a pitch)
 * fading to half its level, measured at a camera vector that a search
 * chasing brightness gave: next's rectangle then holds brighter content
 * than prev's, and the levels summed there are not the fade's. The pair's
 * measurement takes the still camera's, which fit the fade better; under a
 * pan it keeps the camera's vector. */
static void test_measure_pair(TestState *ts)
{
    const int w = 320, h = 192, gx = -40, gy = -32;
    OmctiFrame p, n;
    if (frame_alloc(&p, w, h, 32) < 0 || frame_alloc(&n, w, h, 32) < 0) {
        CHECK(ts, 0, "out of memory");
        return;
    }
    const ActiveArea full = { 0, 0, 0, 0 };
    for (int side = 0; side < 2; side++) {
        OmctiFrame *f = side ? &n : &p;
        fill_frame(f, 0, 0, 1, side ? 2 : 1);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int v = 40 + (h - y) * 150 / h + (texture(x, y) - 104) / 4;
                f->p[0].data[y * f->p[0].stride + x] = faded(v, 1, side ? 2 : 1);
            }
        frame_pad_edges(f);
    }
    const FadeGain at_g = fade_measure(&p, &n, gx, gy, &full);
    const FadeGain pair = fade_measure_pair(&p, &n, gx, gy, &full);
    const FadeGain still = fade_measure(&p, &n, 0, 0, &full);
    /* the case itself: found at g, with a gain 5 % or more off a half */
    CHECK(ts, at_g.active && 20 * labs((long)(2 * at_g.ln - at_g.lp)) >= at_g.lp,
          "the misaligned measurement: active %d, levels %lld %lld (the case needs a fade "
          "found at g with a wrong gain)", at_g.active, (long long)at_g.lp, (long long)at_g.ln);
    CHECK(ts, still.active && still.spread < at_g.spread,
          "the still camera's spread %lld against g's %lld", (long long)still.spread,
          (long long)at_g.spread);
    CHECK(ts, pair.active && pair.lp == still.lp && pair.ln == still.ln &&
                  50 * labs((long)(2 * pair.ln - pair.lp)) < pair.lp,
          "the pair's fade: levels %lld %lld, want the still camera's %lld %lld (a half)",
          (long long)pair.lp, (long long)pair.ln, (long long)still.lp, (long long)still.ln);

    /* a pan that fades: the camera's vector is the better alignment */
    fill_frame(&p, 0, 0, 1, 1);
    fill_frame(&n, -12, 4, 3, 4);
    const FadeGain pan = fade_measure_pair(&p, &n, -12, 4, &full);
    const FadeGain pan_g = fade_measure(&p, &n, -12, 4, &full);
    CHECK(ts, pan.active && pan.lp == pan_g.lp && pan.ln == pan_g.ln,
          "a fade under a pan: levels %lld %lld, want the camera vector's %lld %lld",
          (long long)pan.lp, (long long)pan.ln, (long long)pan_g.lp, (long long)pan_g.ln);
    frame_free(&p);
    frame_free(&n);
}

typedef struct Pic {
    OmctiPicture pic;
    uint8_t *mem;
} Pic;

static void pic_alloc(Pic *b, int w, int h)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    b->mem = calloc((size_t)w * h + 2 * (size_t)cw * ch, 1);
    b->pic = (OmctiPicture){ .data = { b->mem, b->mem + w * h, b->mem + w * h + cw * ch },
                             .stride = { w, cw, cw }, .width = w, .height = h };
}

/* PSNR-Y of a against b inside a margin of m pixels. */
static double psnr_y(const OmctiPicture *a, const OmctiPicture *b, int m)
{
    double se = 0;
    int n = 0;
    for (int y = m; y < a->height - m; y++)
        for (int x = m; x < a->width - m; x++, n++) {
            const int d = a->data[0][y * a->stride[0] + x] - b->data[0][y * b->stride[0] + x];
            se += d * d;
        }
    return se ? 10 * log10(255.0 * 255.0 * n / se) : 100;
}

static double mean_y(const OmctiPicture *a, int m)
{
    double s = 0;
    int n = 0;
    for (int y = m; y < a->height - m; y++)
        for (int x = m; x < a->width - m; x++, n++)
            s += a->data[0][y * a->stride[0] + x];
    return s / n;
}

/* A context of the library on the CPU, 2 threads (NULL and a failed
 * check if it does not open). */
static OmctiContext *open_cpu(TestState *ts, int w, int h)
{
    return test_open_cpu(ts, w, h, 2);
}

/* A picture moving by (8, -4) per pair while it fades to 5/8 (and back in):
 * the middle picture is the texture moved by (4, -2) at 13/16 brightness.
 * With the search misled by brightness it came out at 24 dB; with the
 * pair scaled, as a plain translation would. The phase 1/4 has the level
 * of 1/4 of the way. Both engines run this arithmetic: it is host code. */
static void test_fade_rebuilt(TestState *ts)
{
    const int w = 256, h = 160, m = 24;
    for (int dir = 0; dir < 2; dir++) {
        Pic a, b, mid, out;
        pic_alloc(&a, w, h);
        pic_alloc(&b, w, h);
        pic_alloc(&mid, w, h);
        pic_alloc(&out, w, h);
        fill_picture(&a.pic, 0, 0, dir ? 10 : 16, 16);
        fill_picture(&b.pic, 8, -4, dir ? 16 : 10, 16);
        fill_picture(&mid.pic, 4, -2, 13, 16);
        OmctiContext *c = open_cpu(ts, w, h);
        if (!c) return;
        omcti_send_picture(c, &a.pic);
        omcti_send_picture(c, &b.pic);
        CHECK(ts, omcti_interpolate(c, 1, 2, &out.pic) == 0, "interpolate");
        const double q = psnr_y(&out.pic, &mid.pic, m);
        CHECK(ts, q >= 40.0, "fade %s with motion rebuilt at %.2f dB (< 40)", dir ? "in" : "out",
              q);
        /* a phase in any int64 terms: 2^62 / (2^63 - 1) is 1/2 to 2^-31 */
        CHECK(ts, omcti_interpolate(c, (int64_t)1 << 62, INT64_MAX, &mid.pic) == 0,
              "interpolate 2^62/(2^63-1)");
        CHECK(ts, memcmp(mid.mem, out.mem, (size_t)w * h * 3 / 2) == 0,
              "the phase 2^62/(2^63-1) differs from 1/2");
        CHECK(ts, omcti_interpolate(c, 1, 4, &out.pic) == 0, "interpolate 1/4");
        const double ta = mean_y(&a.pic, m) - 16, tb = mean_y(&b.pic, m) - 16;
        const double want = 16 + 0.75 * ta + 0.25 * tb;
        const double got = mean_y(&out.pic, m);
        CHECK(ts, fabs(got - want) < 0.5, "fade %s, t = 1/4: mean %.2f, want %.2f",
              dir ? "in" : "out", got, want);
        omcti_close(&c);
        free(a.mem); free(b.mem); free(mid.mem); free(out.mem);
    }
}

/* Luma of a cross-dissolve from shot A (the texture moved by (ox, 0)) to
 * shot B (another texture, still) with B's share k/16. */
static void fill_dissolve(OmctiPicture *p, int ox, int k)
{
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++) {
            const int a = texture(x - ox, y), b = texture(3 * y + 500, x + 300);
            p->data[0][y * p->stride[0] + x] = (uint8_t)((a * (16 - k) + b * k + 8) / 16);
        }
    for (int c = 1; c < 3; c++)
        memset(p->data[c], 128, (size_t)p->stride[c] * ((p->height + 1) / 2));
}

static OmctiPlane plane_of(const Pic *b)
{
    return (OmctiPlane){ .data = b->pic.data[0], .stride = b->pic.stride[0],
                         .w = b->pic.width, .h = b->pic.height };
}

/* fade_linear_mix(): a dissolve (still or with shot A moving by 2 px a
 * frame under a third of B) and a fade are linear; motion, a still
 * picture, and a dissolve whose middle picture is off the mean are not. */
static void test_linear_mix(TestState *ts)
{
    const int w = 160, h = 96;
    Pic f[3];
    for (int i = 0; i < 3; i++)
        pic_alloc(&f[i], w, h);
    const OmctiPlane p0 = plane_of(&f[0]), p1 = plane_of(&f[1]);
    const ActiveArea full = { 0, 0, 0, 0 };
#define LINEAR() fade_linear_mix(&p0, &p1, f[2].pic.data[0], f[2].pic.stride[0], &full)
    for (int i = 0; i < 3; i++)
        fill_dissolve(&f[i].pic, 0, 4 + 3 * i);
    CHECK(ts, LINEAR(), "a still dissolve is no linear mix");
    for (int i = 0; i < 3; i++)
        fill_dissolve(&f[i].pic, 2 * i, 4 + 2 * i);
    CHECK(ts, LINEAR(), "a dissolve with shot A moving is no linear mix");
    for (int i = 0; i < 3; i++)
        fill_picture(&f[i].pic, 0, 0, 16 - 2 * i, 16);
    CHECK(ts, LINEAR(), "a fade is no linear mix");
    for (int i = 0; i < 3; i++)
        fill_picture(&f[i].pic, 6 * i, -2 * i, 1, 1);
    CHECK(ts, !LINEAR(), "motion is a linear mix");
    for (int i = 0; i < 3; i++)
        fill_picture(&f[i].pic, 0, 0, 1, 1);
    CHECK(ts, !LINEAR(), "a still picture is a linear mix");
    for (int i = 0; i < 3; i++)
        fill_dissolve(&f[i].pic, 0, i == 1 ? 12 : 4 + 3 * i);
    CHECK(ts, !LINEAR(), "a dissolve whose middle is off the mean is a linear mix");
#undef LINEAR
    for (int i = 0; i < 3; i++)
        free(f[i].mem);
}

/* Black bars (luma 16) over the first and last `rows` rows of luma. */
static void add_bars(OmctiPicture *p, int rows)
{
    for (int y = 0; y < rows; y++) {
        memset(p->data[0] + (ptrdiff_t)y * p->stride[0], 16, (size_t)p->width);
        memset(p->data[0] + (ptrdiff_t)(p->height - 1 - y) * p->stride[0], 16, (size_t)p->width);
    }
}

/* Whether the library's picture at t = 1/2 after sending pictures f[0..n)
 * is the rounded mean of the last two (the blend). */
static int middle_is_blend(TestState *ts, const Pic *f, int n, int w, int h)
{
    Pic out, blend;
    pic_alloc(&out, w, h);
    pic_alloc(&blend, w, h);
    const Pic *a = &f[n - 2], *b = &f[n - 1];
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < (c ? (h + 1) / 2 : h); y++)
            for (int x = 0; x < (c ? (w + 1) / 2 : w); x++) {
                const int st = a->pic.stride[c];
                blend.pic.data[c][y * st + x] =
                    (uint8_t)((a->pic.data[c][y * st + x] + b->pic.data[c][y * st + x] + 1) / 2);
            }
    int same = 0;
    OmctiContext *c = open_cpu(ts, w, h);
    if (c) {
        for (int i = 0; i < n; i++)
            CHECK(ts, omcti_send_picture(c, &f[i].pic) == 0, "send %d", i);
        CHECK(ts, omcti_interpolate(c, 1, 2, &out.pic) == 0, "interpolate");
        same = memcmp(out.mem, blend.mem, (size_t)w * h + 2 * (size_t)(w / 2) * (h / 2)) == 0;
        omcti_close(&c);
    }
    free(out.mem);
    free(blend.mem);
    return same;
}

/* Through the library: in a cross-dissolve (shot A moving by 2 px a frame,
 * B still, B's share 2/16 more each frame) the middle picture of a pair is
 * the blend of the two; the same shot A alone, moving, is not blended. The
 * pair is decided from three pictures: the first pair is built with
 * vectors. The same letterboxed: the context's working copies repeat the
 * edge line over the bars while the new picture still holds them, so the
 * rule must look inside the active area only (it did not: a letterboxed
 * dissolve was never blended). */
static void test_dissolve_blended(TestState *ts)
{
    const int w = 192, h = 128;
    for (int k = 0; k < 4; k++) {
        const int dissolve = k & 1, bars = k >> 1 ? 16 : 0;
        Pic f[3];
        for (int i = 0; i < 3; i++) {
            pic_alloc(&f[i], w, h);
            if (dissolve)
                fill_dissolve(&f[i].pic, 2 * i, 4 + 2 * i);
            else
                fill_picture(&f[i].pic, 4 * i, 0, 1, 1);
            add_bars(&f[i].pic, bars);
        }
        const int same = middle_is_blend(ts, f, 3, w, h);
        if (dissolve)
            CHECK(ts, same, "the dissolve's middle picture is not the blend (bars: %d rows)", bars);
        else
            CHECK(ts, !same, "a moving picture was blended (bars: %d rows)", bars);
        for (int i = 0; i < 3; i++)
            free(f[i].mem);
    }
}

/* The first step of a fade in from black and the last step of a fade to
 * black: black and a dim picture (the texture at 1/8 of its contrast,
 * moving) have the blend as their in-between picture; the vectors matched
 * against black followed the dim picture's dark parts. Black and a picture
 * of full contrast (a cut from black, which no history marks here) are no
 * fade's step: not blended. */
static void test_fade_edge_blended(TestState *ts)
{
    const int w = 192, h = 128;
    for (int k = 0; k < 3; k++) {
        const int to_black = k == 1, dim = k < 2;
        Pic f[2];
        for (int i = 0; i < 2; i++) {
            pic_alloc(&f[i], w, h);
            const int lit = to_black ? i == 0 : i == 1;
            OmctiPicture *p = &f[i].pic;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    p->data[0][y * p->stride[0] + x] =
                        lit ? (uint8_t)(dim ? 16 + (texture(x - 6 * i, y) - 40) / 8
                                            : texture(x - 6 * i, y))
                            : 16;
            memset(p->data[1], 128, (size_t)p->stride[1] * ((h + 1) / 2));
            memset(p->data[2], 128, (size_t)p->stride[2] * ((h + 1) / 2));
        }
        const int same = middle_is_blend(ts, f, 2, w, h);
        if (dim)
            CHECK(ts, same, "the %s step of a fade %s black is not the blend",
                  to_black ? "last" : "first", to_black ? "to" : "from");
        else
            CHECK(ts, !same, "black and a picture of full contrast were blended");
        for (int i = 0; i < 2; i++)
            free(f[i].mem);
    }
}

/* A textured patch sliding in over black, 6 pixels a picture: its pairs
 * cross from a flat picture to a dim one (the patch's share of the
 * picture grows), but no fade's: the change holds a few of the 4x4
 * regions. No pair is blended (a blend shows the patch twice). */
static void test_patch_over_black(TestState *ts)
{
    const int w = 320, h = 192, side = 40;
    Pic f[2];
    for (int i = 0; i < 2; i++)
        pic_alloc(&f[i], w, h);
    int blended = 0, first = -1;
    for (int k = 0; k < 12; k++) {
        for (int i = 0; i < 2; i++) {
            OmctiPicture *p = &f[i].pic;
            const int x0 = 6 * (k + i) - side + 1;   /* the patch's left column */
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    p->data[0][y * p->stride[0] + x] =
                        x >= x0 && x < x0 + side && y >= 76 && y < 76 + side
                            ? (uint8_t)texture(x - x0, y)
                            : 16;
            memset(p->data[1], 128, (size_t)p->stride[1] * ((h + 1) / 2));
            memset(p->data[2], 128, (size_t)p->stride[2] * ((h + 1) / 2));
        }
        if (middle_is_blend(ts, f, 2, w, h)) {
            blended++;
            if (first < 0)
                first = k;
        }
    }
    CHECK(ts, blended == 0, "a patch moving over black was blended in %d of 12 pairs (first: %d)",
          blended, first);
    for (int i = 0; i < 2; i++)
        free(f[i].mem);
}

int main(void)
{
    TestState ts = { 0 };
    test_measure(&ts);
    test_measure_pair(&ts);
    test_fade_rebuilt(&ts);
    test_linear_mix(&ts);
    test_dissolve_blended(&ts);
    test_fade_edge_blended(&ts);
    test_patch_over_black(&ts);
    return test_finish(&ts, "test_fade");
}
