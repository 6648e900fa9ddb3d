/* What the files of test_filters share (test_filters.c: the pictures and
 * main; test_filters_mc.c, test_filters_decisions.c: the tests). */
#ifndef OMCTI_TESTS_FILTERS_TEST_FILTERS_H
#define OMCTI_TESTS_FILTERS_TEST_FILTERS_H

#include <stdint.h>

#include "omcti.h"
#include "filters/mc.h"
#include "tests/check.h"

typedef struct Buf {
    OmctiPicture pic;
    uint8_t *mem;
} Buf;

void buf_alloc(Buf *b, int w, int h);
/* Deterministic texture on an infinite plane: a hash of the coordinates,
 * smoothed a little so that it looks like an image and not only noise. */
uint8_t texture(int x, int y, int plane);
/* Picture = texture shifted by (ox, oy) luma pixels (chroma by half). */
void fill(Buf *b, int ox, int oy);
int planes_equal(const OmctiPicture *a, const OmctiPicture *b, int margin, int *maxdiff);

/* test_filters_mc.c */
void test_masks(TestState *ts);
void test_translation(TestState *ts, OmctiMethod m, int block, int expect_exact);
void test_letterbox(TestState *ts, OmctiMethod m);
void test_odd_sizes(TestState *ts, OmctiMethod m);
void test_edge_pan(TestState *ts, OmctiMethod m);
void test_camera_vector(TestState *ts);
void test_threads_steal(TestState *ts, OmctiMethod m, int threads);

/* test_filters_decisions.c */
void test_scene_cut(TestState *ts, OmctiSceneCut scd);
void test_local_change_not_cut(TestState *ts);
void test_dark_cut(TestState *ts);
void test_cut_to_flat(TestState *ts);
void test_fade_not_cut(TestState *ts);
void test_stepwise(TestState *ts);

#endif
