/* Inactive edge lines (src/active_area.h): detection on synthetic frames,
 * the luma-to-chroma mapping, re-padding and the in-between fill. */
#include <stdlib.h>
#include <string.h>

#include "src/active_area.h"
#include "src/frame.h"
#include "tests/check.h"
#include "tests/texture.h"

/* Luma: texture; `bar` decides which pixels are black bars (16 plus a
 * little noise, as a lossy encoder leaves them). */
static void fill(OmctiFrame *f, int (*bar)(int x, int y, int w, int h))
{
    OmctiPlane *p = &f->p[0];
    for (int y = 0; y < p->h; y++)
        for (int x = 0; x < p->w; x++)
            p->data[y * p->stride + x] = bar && bar(x, y, p->w, p->h)
                                             ? (uint8_t)(16 + (smooth_texture(x, y) & 3))
                                             : smooth_texture(x, y);
    for (int i = 1; i < 3; i++)
        for (int y = 0; y < f->p[i].h; y++)
            memset(f->p[i].data + y * f->p[i].stride, 128, (size_t)f->p[i].w);
    frame_pad_edges(f);
}

static int letterbox(int x, int y, int w, int h) { (void)x; (void)w; return y < 20 || y >= h - 20; }
static int pillarbox(int x, int y, int w, int h) { (void)y; (void)h; return x < 40 || x >= w - 40; }
static int tall_bars(int x, int y, int w, int h) { (void)x; (void)w; return y < 80 || y >= h - 80; }
static int dark_top(int x, int y, int w, int h) { (void)x; (void)w; (void)h; return y < 40; }
static int uneven_letterbox(int x, int y, int w, int h) { (void)x; (void)w; return y < 20 || y >= h - 26; }
static int uneven_pillarbox(int x, int y, int w, int h) { (void)y; (void)h; return x < 30 || x >= w - 60; }
static int all_dark(int x, int y, int w, int h) { (void)x; (void)y; (void)w; (void)h; return 1; }

static int area_is(const ActiveArea *a, int t, int b, int l, int r)
{
    return a->top == t && a->bottom == b && a->left == l && a->right == r;
}

static void expect_area(TestState *ts, const OmctiFrame *f, const char *what, int t, int b,
                        int l, int r)
{
    ActiveArea a;
    active_area_detect(&f->p[0], &a);
    CHECK(ts, area_is(&a, t, b, l, r), "%s: %d %d %d %d", what, a.top, a.bottom, a.left, a.right);
}

static void test_detect(TestState *ts)
{
    OmctiFrame f;
    frame_alloc(&f, 320, 240, 64);
    fill(&f, NULL);
    expect_area(ts, &f, "texture", 0, 0, 0, 0);
    fill(&f, letterbox);
    expect_area(ts, &f, "letterbox", 20, 20, 0, 0);
    fill(&f, pillarbox);
    expect_area(ts, &f, "pillarbox", 0, 0, 40, 40);
    /* bars end at a quarter of the picture */
    fill(&f, tall_bars);
    expect_area(ts, &f, "tall bars", 60, 60, 0, 0);
    /* bars come in pairs: dark content at one edge (a night sky, the black
     * between rolling credits) keeps only a few lines more than the
     * opposite edge, ACTIVE_BAR_SLACK or 1/64 of the picture */
    fill(&f, dark_top);
    expect_area(ts, &f, "dark top", ACTIVE_BAR_SLACK, 0, 0, 0);
    fill(&f, uneven_letterbox);
    expect_area(ts, &f, "uneven letterbox", 20, 26, 0, 0);
    fill(&f, uneven_pillarbox);
    expect_area(ts, &f, "uneven pillarbox", 0, 0, 30, 30 + ACTIVE_BAR_SLACK);

    /* an analogue capture's dimmed last row, and a first column at a third */
    fill(&f, NULL);
    OmctiPlane *y = &f.p[0];
    for (int x = 0; x < y->w; x++)
        y->data[(y->h - 1) * y->stride + x] = (uint8_t)(y->data[(y->h - 2) * y->stride + x] / 2);
    for (int r = 0; r < y->h; r++)
        y->data[r * y->stride] = (uint8_t)(y->data[r * y->stride + 1] / 3);
    expect_area(ts, &f, "damaged lines", 0, 1, 1, 0);
    frame_free(&f);

    /* a picture that would keep too little active area counts as active */
    frame_alloc(&f, 48, 48, 64);
    fill(&f, all_dark);
    expect_area(ts, &f, "tiny dark", 0, 0, 0, 0);
    frame_free(&f);
}

static void test_chroma_lines(TestState *ts)
{
    static const struct { int h, top, bottom, ctop, cbottom; } cases[] = {
        { 288, 0, 0, 0, 0 }, { 288, 1, 1, 1, 1 }, { 288, 2, 2, 1, 1 }, { 288, 3, 3, 2, 2 },
        { 289, 0, 0, 0, 0 }, { 289, 1, 1, 1, 1 }, { 289, 2, 2, 1, 2 }, { 289, 3, 3, 2, 2 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const ActiveArea a = { cases[i].top, cases[i].bottom, cases[i].top, cases[i].bottom };
        ActiveArea c;
        active_area_for_plane(&a, 1, cases[i].h, cases[i].h, &c);
        CHECK(ts, c.top == cases[i].ctop && c.bottom == cases[i].cbottom &&
                  c.left == cases[i].ctop && c.right == cases[i].cbottom,
              "size %d, %d/%d lines: chroma %d/%d, expected %d/%d", cases[i].h, cases[i].top,
              cases[i].bottom, c.top, c.bottom, cases[i].ctop, cases[i].cbottom);
    }
}

/* Which lines a frame of a pair is seen re-padded to (active_area_for_pair()). */
static void test_for_pair(TestState *ts)
{
    static const struct {
        const char *what;
        int w, h;
        ActiveArea own, pair, want;
    } cases[] = {
        /* sintel: the letterbox found 56 lines deep here, 60 in the other frame */
        { "bar 4 lines shallower", 848, 480, { 56, 59, 0, 0 }, { 60, 61, 0, 0 }, { 60, 61, 0, 0 } },
        /* credits: no bar here, the other frame's dark top clamped to 8 lines */
        { "no bar here", 1280, 720, { 0, 1, 0, 0 }, { 8, 1, 0, 0 }, { 0, 1, 0, 0 } },
        { "a depth within the allowance", 1280, 720, { 8, 0, 0, 0 }, { 12, 0, 0, 0 },
          { 8, 0, 0, 0 } },
        /* a fade: the other frame's dark picture merges with the bars */
        { "bar 21 lines shallower", 852, 480, { 0, 0, 99, 99 }, { 0, 0, 120, 99 },
          { 0, 0, 99, 99 } },
        /* 1/64 of a 1920 wide picture is 30 lines */
        { "pillarbox 1/64 apart", 1920, 1080, { 0, 0, 240, 240 }, { 0, 0, 270, 271 },
          { 0, 0, 270, 240 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ActiveArea t;
        active_area_for_pair(&cases[i].own, &cases[i].pair, cases[i].w, cases[i].h, &t);
        const ActiveArea *e = &cases[i].want;
        CHECK(ts, area_is(&t, e->top, e->bottom, e->left, e->right), "%s: %d %d %d %d",
              cases[i].what, t.top, t.bottom, t.left, t.right);
    }
}

static void test_repad_and_fill(TestState *ts)
{
    const int w = 128, h = 96;
    OmctiFrame a, b, out;
    frame_alloc(&a, w, h, 64);
    frame_alloc(&b, w, h, 64);
    frame_alloc(&out, w, h, 0);
    fill(&a, NULL);
    fill(&b, NULL);
    for (int x = 0; x < w; x++) {
        b.p[0].data[x] = 200;
        b.p[0].data[(h - 1) * b.p[0].stride + x] = 10;
    }
    /* a has 2 inactive rows at the top, b 1 at the top and 3 at the bottom */
    const ActiveArea aa = { 2, 0, 0, 0 }, ab = { 1, 3, 0, 0 };
    OmctiPicture pa, pb, po;
    frame_as_picture(&a, &pa);
    frame_as_picture(&b, &pb);
    frame_as_picture(&out, &po);
    for (int i = 0; i < 3; i++)
        for (int y = 0; y < out.p[i].h; y++)
            memset(out.p[i].data + y * out.p[i].stride, 77, (size_t)out.p[i].w);
    active_area_fill(&po, &pa, &aa, &pb, &ab, 64);
    int bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int va = a.p[0].data[y * a.p[0].stride + x];
            const int vb = b.p[0].data[y * b.p[0].stride + x];
            const int expect = (y < 2 || y >= h - 3) ? (va * 192 + vb * 64 + 128) >> 8 : 77;
            bad += out.p[0].data[y * out.p[0].stride + x] != expect;
        }
    CHECK(ts, bad == 0, "fill: %d luma samples differ (lines of either frame, blended)", bad);
    int cbad = 0;
    for (int y = 0; y < out.p[1].h; y++)
        cbad += out.p[1].data[y * out.p[1].stride] != ((y < 1 || y >= out.p[1].h - 2) ? 128 : 77);
    CHECK(ts, cbad == 0, "fill: %d chroma rows wrong", cbad);

    /* repad: the inactive lines and the padding beyond them are the active edge */
    const ActiveArea box = { 3, 2, 5, 1 };
    active_area_repad(&b, &box);
    const OmctiPlane *y = &b.p[0];
    int rbad = 0;
    for (int r = -y->pad; r < y->h + y->pad; r++)
        for (int x = -y->pad; x < y->w + y->pad; x++) {
            const int sr = r < 3 ? 3 : r > h - 3 ? h - 3 : r;
            const int sx = x < 5 ? 5 : x > w - 2 ? w - 2 : x;
            rbad += y->data[r * y->stride + x] != y->data[sr * y->stride + sx];
        }
    CHECK(ts, rbad == 0, "repad: %d samples are not the nearest active one", rbad);
    frame_free(&a);
    frame_free(&b);
    frame_free(&out);
}

/* A letterboxed picture moving up by 8 lines per pair whose bar rings in
 * the second frame (a few brighter samples on its last 4 lines). Found at
 * two depths, the lines below the bar were rebuilt from the bar of one
 * frame and the picture of the other: half dark (25 levels off on
 * average). */
static uint8_t bright(int x, int y) { return (uint8_t)(88 + smooth_texture(x, y + 64)); }

static void letterboxed(OmctiPicture *p, int shift, int bar, int ringing)
{
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++) {
            const int in_bar = y < bar || y >= p->height - bar;
            const int rings = ringing && y >= bar - 4 && y < bar && x % 40 == 0;
            p->data[0][y * p->stride[0] + x] = rings ? 44 : in_bar ? 16 : bright(x, y + shift);
        }
    for (int c = 1; c < 3; c++)
        for (int y = 0; y < (p->height + 1) / 2; y++)
            memset(p->data[c] + y * p->stride[c], 128, (size_t)(p->width + 1) / 2);
}

static void test_ringing_bar_rebuilt(TestState *ts)
{
    const int w = 256, h = 192, bar = 24;
    OmctiFrame fa, fb, fm, fo;
    frame_alloc(&fa, w, h, 0);
    frame_alloc(&fb, w, h, 0);
    frame_alloc(&fm, w, h, 0);
    frame_alloc(&fo, w, h, 0);
    OmctiPicture a, b, mid, out;
    frame_as_picture(&fa, &a);
    frame_as_picture(&fb, &b);
    frame_as_picture(&fm, &mid);
    frame_as_picture(&fo, &out);
    letterboxed(&a, 0, bar, 0);
    letterboxed(&b, 8, bar, 1);
    letterboxed(&mid, 4, bar, 0);
    OmctiSettings s;
    omcti_default_settings(&s);
    s.engine = "cpu";
    char err[256];
    OmctiContext *c = NULL;
    CHECK(ts, omcti_open(&c, &s, w, h, err, sizeof err) == 0, "open: %s", err);
    if (c) {
        omcti_send_picture(c, &a);
        omcti_send_picture(c, &b);
        CHECK(ts, omcti_interpolate(c, 1, 2, &out) == 0, "interpolate: %s", omcti_last_error(c));
        /* the 8 lines below the bar, away from the side edges */
        long sum = 0, n = 0;
        for (int y = bar; y < bar + 8; y++)
            for (int x = 16; x < w - 16; x++, n++)
                sum += abs(out.data[0][y * out.stride[0] + x] - mid.data[0][y * mid.stride[0] + x]);
        const double mean = (double)sum / (double)n;
        CHECK(ts, mean <= 12.0, "below a ringing bar: %.1f levels off on average", mean);
        omcti_close(&c);
    }
    frame_free(&fa);
    frame_free(&fb);
    frame_free(&fm);
    frame_free(&fo);
}

int main(void)
{
    TestState ts = {0};
    test_detect(&ts);
    test_chroma_lines(&ts);
    test_for_pair(&ts);
    test_repad_and_fill(&ts);
    test_ringing_bar_rebuilt(&ts);
    return test_finish(&ts, "test_active_area");
}
