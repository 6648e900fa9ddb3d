/* The filters' per-pair decisions (test_filters.c): scene cuts (and what
 * is not one: a local change, a fade), cuts to and from black, and a still
 * camera held as stepwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omcti.h"
#include "filters/mc.h"
#include "tests/check.h"
#include "tests/filters/test_filters.h"

/* A sequence of small pans, then an unrelated picture: the last pair is a
 * scene cut (and the nearer original is held); with --scd none it is not. */
void test_scene_cut(TestState *ts, OmctiSceneCut scd)
{
    const int w = 128, h = 96;
    Buf p, out;
    buf_alloc(&p, w, h);
    buf_alloc(&out, w, h);
    OmctiSettings s;
    omcti_default_settings(&s);
    s.engine = "cpu";
    s.scd = scd;
    char err[256];
    OmctiContext *c = NULL;
    if (omcti_open(&c, &s, w, h, err, sizeof err)) {
        CHECK(ts, 0, "open: %s", err);
        return;
    }
    int cuts = 0;
    for (int i = 0; i < 6; i++) {
        fill(&p, 2 * i, i);
        omcti_send_picture(c, &p.pic);
        cuts += omcti_pair_is_cut(c);
    }
    CHECK(ts, cuts == 0, "cuts during a pan: %d", cuts);
    /* an unrelated picture: the texture hashed with other coordinates */
    Buf q;
    buf_alloc(&q, w, h);
    fill(&q, 5000, 7000);
    omcti_send_picture(c, &q.pic);
    if (scd == OMCTI_SCD_AUTO) {
        CHECK(ts, omcti_pair_is_cut(c), "the cut was not detected");
        omcti_interpolate(c, 1, 3, &out.pic);
        CHECK(ts, planes_equal(&p.pic, &out.pic, 0, NULL), "cut: t=1/3 does not hold prev");
        omcti_interpolate(c, 2, 3, &out.pic);
        CHECK(ts, planes_equal(&q.pic, &out.pic, 0, NULL), "cut: t=2/3 does not hold next");
    } else {
        CHECK(ts, !omcti_pair_is_cut(c), "--scd none reported a cut");
    }
    OmctiStats st;
    omcti_get_stats(c, &st);
    CHECK(ts, st.scene_cuts == (scd == OMCTI_SCD_AUTO), "stats count %llu cuts",
          (unsigned long long)st.scene_cuts);
    omcti_close(&c);
    free(p.mem); free(q.mem); free(out.mem);
}

/* Picture = a low-contrast texture (1/16 of the range, shifted by (ox, oy))
 * at brightness base, in every plane. */
static void fill_dim(Buf *b, int ox, int oy, int base)
{
    fill(b, ox, oy);
    const int w = b->pic.width, h = b->pic.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < (c ? cw * ch : w * h); i++)
            b->pic.data[c][i] = (uint8_t)(base + b->pic.data[c][i] / 16);
}

/* A CPU context that has seen p five times (a still moment), then q; NULL
 * (and a failed check) when it cannot open. */
static OmctiContext *still_then(TestState *ts, const Buf *p, const Buf *q)
{
    OmctiSettings s;
    omcti_default_settings(&s);
    s.engine = "cpu";
    char err[256];
    OmctiContext *c = NULL;
    if (omcti_open(&c, &s, p->pic.width, p->pic.height, err, sizeof err)) {
        CHECK(ts, 0, "open: %s", err);
        return NULL;
    }
    for (int i = 0; i < 5; i++)
        omcti_send_picture(c, &p->pic);
    omcti_send_picture(c, &q->pic);
    return c;
}

/* A still picture, then most of it changes at once (a head turning fast in
 * a close-up after a still moment: the cost jumps as at a cut) while the
 * rest stays: not a cut, because a cut changes the whole picture; the same
 * change over the whole picture is one. */
void test_local_change_not_cut(TestState *ts)
{
    const int w = 128, h = 96, changed = 80; /* columns [0, 80) change */
    Buf p, q;
    buf_alloc(&p, w, h);
    buf_alloc(&q, w, h);
    fill_dim(&p, 0, 0, 100);
    fill_dim(&q, 5000, 7000, 30);
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    for (int c = 0; c < 3; c++) {
        const int pw = c ? cw : w, ph = c ? ch : h, from = c ? changed / 2 : changed;
        for (int y = 0; y < ph; y++)
            memcpy(q.pic.data[c] + y * pw + from, p.pic.data[c] + y * pw + from,
                   (size_t)(pw - from));
    }
    OmctiContext *c = still_then(ts, &p, &q);
    if (!c) {
        free(p.mem); free(q.mem);
        return;
    }
    CHECK(ts, !omcti_pair_is_cut(c), "a change of %d of %d columns judged a cut", changed, w);
    fill_dim(&q, 9000, 3000, 100);
    for (int i = 0; i < 4; i++)
        omcti_send_picture(c, &q.pic);
    fill_dim(&q, 5000, 7000, 30);
    omcti_send_picture(c, &q.pic);
    CHECK(ts, omcti_pair_is_cut(c), "a change of the whole picture was not judged a cut");
    omcti_close(&c);
    free(p.mem); free(q.mem);
}

/* A night scene cut to another: the dark middle of the picture (columns
 * [40, 92), 40 % of the blocks) is flat and the same in both, everything
 * else changes: a cut, though its flat part is well predicted. */
void test_dark_cut(TestState *ts)
{
    const int w = 128, h = 96, x0 = 40, x1 = 92;
    Buf p, q;
    buf_alloc(&p, w, h);
    buf_alloc(&q, w, h);
    fill(&p, 0, 0);
    fill(&q, 5000, 7000);
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    for (int c = 0; c < 3; c++) {
        const int pw = c ? cw : w, ph = c ? ch : h, a = c ? x0 / 2 : x0, b = c ? x1 / 2 : x1;
        for (int y = 0; y < ph; y++) {
            memset(p.pic.data[c] + y * pw + a, c ? 128 : 20, (size_t)(b - a));
            memset(q.pic.data[c] + y * pw + a, c ? 128 : 20, (size_t)(b - a));
        }
    }
    OmctiContext *c = still_then(ts, &p, &q);
    if (!c) {
        free(p.mem); free(q.mem);
        return;
    }
    CHECK(ts, omcti_pair_is_cut(c), "a cut whose flat 40 %% is unchanged was not judged a cut");
    omcti_close(&c);
    free(p.mem); free(q.mem);
}

/* Luma and chroma of b flat: black (16, 128, 128). */
static void fill_black(Buf *b)
{
    const int w = b->pic.width, h = b->pic.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    for (int c = 0; c < 3; c++)
        memset(b->pic.data[c], c ? 128 : 16, (size_t)(c ? cw * ch : w * h));
}

/* Luma of b scaled towards black: 16 + (y - 16) * num / den (a fade). */
static void darken(Buf *b, const Buf *src, int num, int den)
{
    const int w = b->pic.width, h = b->pic.height;
    for (int i = 0; i < w * h; i++)
        b->pic.data[0][i] = (uint8_t)(16 + (src->pic.data[0][i] - 16) * num / den);
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    for (int c = 1; c < 3; c++)
        memcpy(b->pic.data[c], src->pic.data[c], (size_t)(cw * ch));
}

/* Cuts to and from black are cuts: a textured still, then black (a block
 * flat on one side only is a change); the same with a small logo kept in
 * the corner (the blocks flat in next alone do not leave the judgement to
 * the logo); black for six frames, then a picture (a cut out of a long
 * black: no cost in the history to compare with, yet a cut). */
void test_cut_to_flat(TestState *ts)
{
    const int w = 128, h = 96;
    Buf p, q;
    buf_alloc(&p, w, h);
    buf_alloc(&q, w, h);
    fill(&p, 0, 0);
    fill_black(&q);
    OmctiContext *c = still_then(ts, &p, &q);
    if (c) {
        CHECK(ts, omcti_pair_is_cut(c), "a cut to black was not judged a cut");
        omcti_close(&c);
    }
    for (int y = 0; y < 16; y++)   /* a 16x16 logo, the same in both */
        memcpy(q.pic.data[0] + y * w, p.pic.data[0] + y * w, 16);
    c = still_then(ts, &p, &q);
    if (c) {
        CHECK(ts, omcti_pair_is_cut(c), "a cut to black with a logo was not judged a cut");
        omcti_close(&c);
    }
    fill_black(&q);
    c = still_then(ts, &q, &q);   /* six black frames */
    if (c) {
        omcti_send_picture(c, &p.pic);
        CHECK(ts, omcti_pair_is_cut(c), "a cut out of six black frames was not judged a cut");
        omcti_close(&c);
    }
    free(p.mem); free(q.mem);
}

/* Fades are no cuts: a still picture that starts to fade out (its cost
 * jumps from zero) keeps its texture; the last step of a fade out, from
 * 1/32 of the picture to black, and the first step of a fade in, from
 * black to 1/32 (after five black frames, or after one black frame that
 * followed a still picture), are too dim to tell; the fade in's second
 * step (1/32 to 1/4) does not jump. All are interpolated. */
void test_fade_not_cut(TestState *ts)
{
    const int w = 128, h = 96;
    Buf p, q, black;
    buf_alloc(&p, w, h);
    buf_alloc(&q, w, h);
    buf_alloc(&black, w, h);
    fill(&p, 0, 0);
    fill_black(&black);
    darken(&q, &p, 3, 4);
    OmctiContext *c = still_then(ts, &p, &q);
    if (c) {
        CHECK(ts, !omcti_pair_is_cut(c), "a fade out (a still picture at 3/4) judged a cut");
        omcti_close(&c);
    }
    darken(&q, &p, 1, 32);   /* this texture's full contrast: 1/32 is dim */
    c = still_then(ts, &q, &black);
    if (c) {
        CHECK(ts, !omcti_pair_is_cut(c), "a fade's last step (1/32 of the picture to black) "
              "judged a cut");
        omcti_close(&c);
    }
    c = still_then(ts, &black, &q);
    if (c) {
        CHECK(ts, !omcti_pair_is_cut(c), "a fade in from black (to 1/32 of the picture) judged "
              "a cut");
        Buf r;
        buf_alloc(&r, w, h);
        darken(&r, &p, 1, 4);
        omcti_send_picture(c, &r.pic);
        CHECK(ts, !omcti_pair_is_cut(c), "the fade in's second step (1/32 to 1/4) judged a cut");
        omcti_close(&c);
        free(r.mem);
    }
    c = still_then(ts, &p, &black);
    if (c) {
        omcti_send_picture(c, &q.pic);
        CHECK(ts, !omcti_pair_is_cut(c), "a fade in after one black frame judged a cut");
        omcti_close(&c);
    }
    free(p.mem); free(q.mem); free(black.mem);
}

/* Picture of texture with a window of 2 blocks (32x16 luma at (64, 48))
 * showing the texture shifted by k: a still camera whose encoder kept
 * every other block bit for bit, while something small moves. */
static void fill_window(Buf *b, int k)
{
    fill(b, 0, 0);
    const int w = b->pic.width, cw = (w + 1) / 2;
    for (int y = 48; y < 64; y++)
        for (int x = 64; x < 96; x++)
            b->pic.data[0][y * w + x] = texture(x - k, y, 0);
    for (int c = 1; c < 3; c++)
        for (int y = 24; y < 32; y++)
            for (int x = 32; x < 48; x++)
                b->pic.data[c][y * cw + x] = texture(x - k / 2, y, c);
}

/* The stepwise rule (scenecut.h): after a duplicate picture (a screen
 * capture) the pairs hold the nearer original; a still camera whose
 * pictures repeat 190 of 192 blocks bit for bit is not stepwise (above the
 * rule's 1/128) and is interpolated. */
void test_stepwise(TestState *ts)
{
    const int w = 256, h = 192;
    Buf a, b, out;
    buf_alloc(&a, w, h);
    buf_alloc(&b, w, h);
    buf_alloc(&out, w, h);
    OmctiSettings s;
    omcti_default_settings(&s);
    s.engine = "cpu";
    char err[256];
    for (int screen = 0; screen < 2; screen++) {
        OmctiContext *c = NULL;
        if (omcti_open(&c, &s, w, h, err, sizeof err)) {
            CHECK(ts, 0, "open: %s", err);
            break;
        }
        for (int i = 0; i < 5; i++) {
            /* the screen: a duplicate every other picture, then a scroll */
            fill_window(&a, screen ? 6 * (i / 2) : 6 * i);
            omcti_send_picture(c, &a.pic);
        }
        fill_window(&b, 30);
        omcti_send_picture(c, &b.pic);
        CHECK(ts, omcti_interpolate(c, 1, 2, &out.pic) == 0, "interpolate");
        if (screen)
            CHECK(ts, planes_equal(&a.pic, &out.pic, 0, NULL),
                  "a screen capture with duplicate pictures: t=1/2 does not hold prev");
        else
            CHECK(ts, !planes_equal(&a.pic, &out.pic, 0, NULL),
                  "a still camera with 2 of 192 blocks moving was held as stepwise");
        omcti_close(&c);
    }
    free(a.mem); free(b.mem); free(out.mem);
}
