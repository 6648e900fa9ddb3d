/* Padded, aligned picture planes: the library's internal frame.
 *
 * Every plane has `pad` replicated pixels on each side, so motion search and
 * compensation may read up to `pad` pixels outside the picture without any
 * bounds check. Rows are 64-byte aligned. */
#ifndef OMCTI_FRAME_H
#define OMCTI_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "omcti.h"

#define FRAME_ALIGN 64

typedef struct OmctiPlane {
    uint8_t *buf;      /* allocation                                     */
    uint8_t *data;     /* pixel (0,0)                                    */
    ptrdiff_t stride;  /* bytes per row, multiple of FRAME_ALIGN         */
    int w, h;          /* visible size                                   */
    int pad;           /* replicated border on every side                */
} OmctiPlane;

typedef struct OmctiFrame {
    OmctiPlane p[3];   /* Y, U, V                                        */
    int width, height;
    uint64_t serial;   /* increases with every picture sent; engines may
                          cache device copies by it                       */
    int64_t number;    /* the picture's place in the whole video
                          (omcti_send_picture_at()); copies keep their
                          original's                                      */
} OmctiFrame;

/* pad_luma is rounded up to a multiple of 32; chroma gets half of it. */
int  frame_alloc(OmctiFrame *f, int width, int height, int pad_luma);
void frame_free(OmctiFrame *f);

/* Copies a caller's picture in and replicates the borders. With threads,
 * thread t copies the t-th contiguous band of rows, so that the rows a
 * thread will search (src/motion/cpu_engine.c) are already in its cache. */
void frame_copy_in(OmctiFrame *f, const OmctiPicture *pic);
void frame_copy_in_threads(OmctiFrame *f, const OmctiPicture *pic, int threads);
void frame_pad_edges(OmctiFrame *f);

/* Visible planes of f as a picture (no copy). */
void frame_as_picture(const OmctiFrame *f, OmctiPicture *pic);

/* 0 when pic is a picture of width x height that the library may read
 * (or write): three planes, each with data and its rows at least the
 * plane's width apart (a negative stride: a picture stored bottom up);
 * else OMCTI_ERR_INVALID and a message naming it (`what`: "input",
 * "output") in err. */
int picture_check(const OmctiPicture *pic, int width, int height, const char *what, char *err,
                  size_t errlen);

/* Copies the visible area of src to dst (same sizes). */
void picture_copy(OmctiPicture *dst, const OmctiPicture *src);

static inline int chroma_size(int n) { return (n + 1) >> 1; }

#endif
