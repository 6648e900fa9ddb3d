/* The public API's arguments (include/omcti.h): a NULL context, settings,
 * picture or pointer, a picture plane without data or with rows closer
 * than its width are refused with OMCTI_ERR_INVALID and a message, never a
 * crash (before 2026-11-28 each of them crashed the library: a NULL
 * dereference or a copy from address 0), and a refused picture changes
 * nothing. A picture stored bottom up (negative strides) is read and
 * written as the same picture stored top down. */
#include <stdlib.h>
#include <string.h>

#include "omcti.h"
#include "tests/check.h"
#include "tests/context_util.h"
#include "tests/texture.h"

enum { W = 96, H = 80 };

typedef struct Pic {
    OmctiPicture pic;
    uint8_t *mem;
} Pic;

/* flip: the same memory as a picture stored bottom up (data at the last
 * row of each plane, negative strides). */
static void pic_alloc(Pic *p, int flip)
{
    const int cw = (W + 1) / 2, ch = (H + 1) / 2;
    p->mem = calloc((size_t)W * H + 2 * (size_t)cw * ch, 1);
    if (!p->mem)
        exit(1);
    uint8_t *plane[3] = { p->mem, p->mem + W * H, p->mem + W * H + cw * ch };
    const int w[3] = { W, cw, cw }, h[3] = { H, ch, ch };
    for (int c = 0; c < 3; c++) {
        p->pic.data[c] = flip ? plane[c] + (ptrdiff_t)(h[c] - 1) * w[c] : plane[c];
        p->pic.stride[c] = flip ? -w[c] : w[c];
    }
    p->pic.width = W;
    p->pic.height = H;
}

/* The texture moved by (ox, oy), written through the picture's strides. */
static void pic_fill(Pic *p, int ox, int oy)
{
    const OmctiPicture *q = &p->pic;
    for (int c = 0; c < 3; c++) {
        const int w = c ? (W + 1) / 2 : W, h = c ? (H + 1) / 2 : H;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                q->data[c][y * q->stride[c] + x] =
                    c ? (uint8_t)(128 + c * 9 + (x + y) % 5) : smooth_texture(x + ox, y + oy);
    }
}

static int pic_equal(const Pic *a, const Pic *b)
{
    return test_pictures_equal(&a->pic, &b->pic);
}

static OmctiContext *open_context(TestState *ts)
{
    return test_open_cpu(ts, W, H, 1);
}

static void test_null_arguments(TestState *ts)
{
    OmctiSettings s;
    omcti_default_settings(&s);
    s.engine = "cpu";
    char err[256] = "";
    OmctiContext *c = NULL;
    CHECK(ts, omcti_open(NULL, &s, W, H, err, sizeof err) == OMCTI_ERR_INVALID && err[0],
          "open with no place for the context: '%s'", err);
    err[0] = 0;
    CHECK(ts, omcti_open(&c, NULL, W, H, err, sizeof err) == OMCTI_ERR_INVALID && !c && err[0],
          "open with no settings: '%s'", err);
    CHECK(ts, omcti_validate_settings(NULL, NULL, 0) == OMCTI_ERR_INVALID, "validate NULL");
    /* the size limit the header states: one past it is refused, before
     * anything is allocated (an open at the limit itself would take GBs) */
    const int sizes[][2] = { { OMCTI_MAX_DIMENSION + 1, 16 }, { 16, OMCTI_MAX_DIMENSION + 1 },
                             { 0, 16 }, { 16, 0 } };
    /* and the limit itself is taken (a thin picture: the open is cheap) */
    CHECK(ts, omcti_open(&c, &s, OMCTI_MAX_DIMENSION, 16, err, sizeof err) == 0 && c,
          "open at %dx16: '%s'", OMCTI_MAX_DIMENSION, err);
    omcti_close(&c);
    CHECK(ts, omcti_open(&c, &s, 16, OMCTI_MAX_DIMENSION, err, sizeof err) == 0 && c,
          "open at 16x%d: '%s'", OMCTI_MAX_DIMENSION, err);
    omcti_close(&c);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        err[0] = 0;
        CHECK(ts, omcti_open(&c, &s, sizes[i][0], sizes[i][1], err, sizeof err) ==
                          OMCTI_ERR_INVALID && !c && err[0],
              "open at %dx%d: '%s'", sizes[i][0], sizes[i][1], err);
    }
    omcti_default_settings(NULL);

    Pic p;
    pic_alloc(&p, 0);
    CHECK(ts, omcti_send_picture(NULL, &p.pic) == OMCTI_ERR_INVALID, "send to no context");
    CHECK(ts, omcti_send_picture_at(NULL, &p.pic, 0) == OMCTI_ERR_INVALID, "send_at to none");
    CHECK(ts, omcti_interpolate(NULL, 1, 2, &p.pic) == OMCTI_ERR_INVALID, "interpolate none");
    CHECK(ts, !omcti_has_pair(NULL) && !omcti_pair_is_cut(NULL), "a pair in no context");
    CHECK(ts, !strcmp(omcti_engine_name(NULL), "none"), "engine of no context");
    CHECK(ts, omcti_last_error(NULL) && omcti_last_error(NULL)[0], "error of no context");
    OmctiStats st;
    memset(&st, 0xff, sizeof st);
    omcti_get_stats(NULL, &st);
    CHECK(ts, st.pairs == 0 && st.interpolated == 0, "stats of no context");
    omcti_close(NULL);
    free(p.mem);
}

/* Each bad picture is refused with a message naming what is wrong, and
 * the pair in the context stays. */
static void test_bad_pictures(TestState *ts)
{
    Pic a, b, out, ref;
    pic_alloc(&a, 0);
    pic_alloc(&b, 0);
    pic_alloc(&out, 0);
    pic_alloc(&ref, 0);
    pic_fill(&a, 10, 20);
    pic_fill(&b, 14, 18);
    OmctiContext *c = open_context(ts);
    if (!c)
        return;
    CHECK(ts, omcti_send_picture(c, &a.pic) == 0 && omcti_send_picture(c, &b.pic) == 0,
          "send: %s", omcti_last_error(c));
    CHECK(ts, omcti_interpolate(c, 1, 2, &ref.pic) == 0, "interpolate: %s", omcti_last_error(c));

    /* stride: 1 = one byte less than the width, -1 = that bottom up */
    static const struct { int plane, stride, no_data; const char *says; } bad[] = {
        { 0, 0, 1, "plane 0 has no data" },
        { 1, 0, 1, "plane 1 has no data" },
        { 2, 0, 1, "plane 2 has no data" },
        { 0, 1, 0, "plane 0 has its rows 95 bytes apart, closer than its width (96)" },
        { 1, 1, 0, "plane 1 has its rows 47 bytes apart" },
        { 2, 1, 0, "plane 2 has its rows 47 bytes apart" },
        { 0, -1, 0, "plane 0 has its rows -95 bytes apart" },
        { 2, -1, 0, "plane 2 has its rows -47 bytes apart" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        OmctiPicture q = b.pic;
        if (bad[i].no_data)
            q.data[bad[i].plane] = NULL;
        if (bad[i].stride)
            q.stride[bad[i].plane] = bad[i].stride * (q.stride[bad[i].plane] - 1);
        CHECK(ts, omcti_send_picture(c, &q) == OMCTI_ERR_INVALID, "input %zu accepted", i);
        CHECK(ts, strstr(omcti_last_error(c), "input") &&
                      strstr(omcti_last_error(c), bad[i].says),
              "input %zu: '%s'", i, omcti_last_error(c));
        CHECK(ts, omcti_interpolate(c, 1, 2, &q) == OMCTI_ERR_INVALID, "output %zu accepted", i);
        CHECK(ts, strstr(omcti_last_error(c), "output") &&
                      strstr(omcti_last_error(c), bad[i].says),
              "output %zu: '%s'", i, omcti_last_error(c));
    }
    CHECK(ts, omcti_send_picture(c, NULL) == OMCTI_ERR_INVALID, "no input picture accepted");
    CHECK(ts, omcti_interpolate(c, 1, 2, NULL) == OMCTI_ERR_INVALID, "no output accepted");
    CHECK(ts, omcti_has_pair(c), "a refused picture ended the pair");
    CHECK(ts, omcti_interpolate(c, 1, 2, &out.pic) == 0 && pic_equal(&out, &ref),
          "the pair's picture changed after the refused pictures");
    omcti_close(&c);
    omcti_close(&c); /* a closed context is NULL: nothing happens */
    free(a.mem);
    free(b.mem);
    free(out.mem);
    free(ref.mem);
}

/* Bottom-up pictures in and out give the top-down run's picture. */
static void test_bottom_up(TestState *ts)
{
    Pic a, b, fa, fb, out, fout;
    pic_alloc(&a, 0);
    pic_alloc(&b, 0);
    pic_alloc(&out, 0);
    pic_alloc(&fa, 1);
    pic_alloc(&fb, 1);
    pic_alloc(&fout, 1);
    pic_fill(&a, 30, 12);
    pic_fill(&b, 36, 10);
    pic_fill(&fa, 30, 12);
    pic_fill(&fb, 36, 10);
    OmctiContext *c = open_context(ts), *f = open_context(ts);
    if (c && f) {
        CHECK(ts, omcti_send_picture(c, &a.pic) == 0 && omcti_send_picture(c, &b.pic) == 0,
              "send: %s", omcti_last_error(c));
        CHECK(ts, omcti_send_picture(f, &fa.pic) == 0 && omcti_send_picture(f, &fb.pic) == 0,
              "send bottom up: %s", omcti_last_error(f));
        static const int phases[3][2] = { { 1, 2 }, { 1, 3 }, { 0, 1 } };
        for (int i = 0; i < 3; i++) {
            CHECK(ts, omcti_interpolate(c, phases[i][0], phases[i][1], &out.pic) == 0, "top down");
            CHECK(ts, omcti_interpolate(f, phases[i][0], phases[i][1], &fout.pic) == 0,
                  "bottom up: %s", omcti_last_error(f));
            CHECK(ts, pic_equal(&out, &fout), "bottom up differs at %d/%d", phases[i][0],
                  phases[i][1]);
        }
    }
    omcti_close(&c);
    omcti_close(&f);
    Pic *all[] = { &a, &b, &out, &fa, &fb, &fout };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]->mem);
}

int main(void)
{
    TestState ts = { 0, 0 };
    test_null_arguments(&ts);
    test_bad_pictures(&ts);
    test_bottom_up(&ts);
    return test_finish(&ts, "api-args");
}
