/* Unit tests of the interpolation filters on synthetic pictures, one
 * program and one test (test_filters_mc.c: the pictures the filters build;
 * test_filters_decisions.c: the per-pair decisions): here the pictures
 * they share and the order the tests run in. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omcti.h"
#include "filters/mc.h"
#include "tests/check.h"
#include "tests/filters/test_filters.h"

void buf_alloc(Buf *b, int w, int h)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    b->mem = calloc((size_t)w * h + 2 * (size_t)cw * ch, 1);
    b->pic = (OmctiPicture){ .data = { b->mem, b->mem + w * h, b->mem + w * h + cw * ch },
                             .stride = { w, cw, cw }, .width = w, .height = h };
}

/* Deterministic texture on an infinite plane: a hash of the coordinates,
 * smoothed a little so that it looks like an image and not only noise. */
uint8_t texture(int x, int y, int plane)
{
    uint32_t s = 0;
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            uint32_t v = (uint32_t)(x + dx) * 73856093u ^ (uint32_t)(y + dy) * 19349663u ^
                         (uint32_t)plane * 83492791u;
            v ^= v >> 13;
            v *= 0x5bd1e995u;
            v ^= v >> 15;
            s += v & 255;
        }
    return (uint8_t)(s / 4);
}

/* Picture = texture shifted by (ox, oy) luma pixels (chroma by half). */
void fill(Buf *b, int ox, int oy)
{
    const int w = b->pic.width, h = b->pic.height;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            b->pic.data[0][y * w + x] = texture(x - ox, y - oy, 0);
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    for (int p = 1; p < 3; p++)
        for (int y = 0; y < ch; y++)
            for (int x = 0; x < cw; x++)
                b->pic.data[p][y * cw + x] = texture(x - ox / 2, y - oy / 2, p);
}

int planes_equal(const OmctiPicture *a, const OmctiPicture *b, int margin, int *maxdiff)
{
    int md = 0;
    if (2 * margin >= a->width || 2 * margin >= a->height) return -1; /* nothing to compare */
    for (int p = 0; p < 3; p++) {
        const int w = p ? (a->width + 1) / 2 : a->width, h = p ? (a->height + 1) / 2 : a->height;
        const int m = p ? margin / 2 : margin;
        for (int y = m; y < h - m; y++)
            for (int x = m; x < w - m; x++) {
                int d = abs(a->data[p][y * a->stride[p] + x] - b->data[p][y * b->stride[p] + x]);
                if (d > md) md = d;
            }
    }
    if (maxdiff) *maxdiff = md;
    return md == 0 ? 1 : 0;
}
int main(void)
{
    TestState ts = {0};
    static const int team[6] = { 2, 3, 4, 7, 11, 64 }; /* 64: more threads than rows */
    for (int i = 0; i < 6; i++) {
        test_threads_steal(&ts, OMCTI_METHOD_OMCTI, team[i]);
        test_threads_steal(&ts, OMCTI_METHOD_MCTI, team[i]);
    }
    test_masks(&ts);
    for (int b = 8; b <= 32; b *= 2) {
        test_translation(&ts, OMCTI_METHOD_OMCTI, b, 1);
        test_translation(&ts, OMCTI_METHOD_MCTI, b, 1);
    }
    test_translation(&ts, OMCTI_METHOD_REPEAT, 16, 0);
    test_translation(&ts, OMCTI_METHOD_BLEND, 16, 0);
    test_odd_sizes(&ts, OMCTI_METHOD_OMCTI);
    test_odd_sizes(&ts, OMCTI_METHOD_MCTI);
    test_letterbox(&ts, OMCTI_METHOD_OMCTI);
    test_letterbox(&ts, OMCTI_METHOD_MCTI);
    test_scene_cut(&ts, OMCTI_SCD_AUTO);
    test_scene_cut(&ts, OMCTI_SCD_NONE);
    test_local_change_not_cut(&ts);
    test_stepwise(&ts);
    test_dark_cut(&ts);
    test_cut_to_flat(&ts);
    test_fade_not_cut(&ts);
    test_camera_vector(&ts);
    test_edge_pan(&ts, OMCTI_METHOD_OMCTI);
    test_edge_pan(&ts, OMCTI_METHOD_MCTI);
    return test_finish(&ts, "test_filters");
}
