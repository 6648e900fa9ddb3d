#include <string.h>

#include "src/common.h"
#include "src/frame.h"

int frame_alloc(OmctiFrame *f, int width, int height, int pad_luma)
{
    memset(f, 0, sizeof *f);
    pad_luma = ALIGN_UP(pad_luma, 32);
    f->width = width;
    f->height = height;
    for (int i = 0; i < 3; i++) {
        OmctiPlane *p = &f->p[i];
        p->w = i ? chroma_size(width) : width;
        p->h = i ? chroma_size(height) : height;
        p->pad = i ? pad_luma / 2 : pad_luma;
        /* The left border is rounded up to the alignment so that column 0
         * of every row starts on a 64-byte boundary. */
        const size_t lead = ALIGN_UP((size_t)p->pad, FRAME_ALIGN);
        p->stride = ALIGN_UP(lead + p->w + p->pad, FRAME_ALIGN);
        const size_t rows = (size_t)p->h + 2 * p->pad;
        /* One spare row lets SIMD loads run a vector past the last padded
         * pixel without leaving the allocation. */
        p->buf = aligned_calloc(p->stride * (rows + 1));
        if (!p->buf) {
            frame_free(f);
            return -1;
        }
        p->data = p->buf + p->pad * p->stride + lead;
    }
    return 0;
}

void frame_free(OmctiFrame *f)
{
    for (int i = 0; i < 3; i++)
        aligned_free(f->p[i].buf);
    memset(f, 0, sizeof *f);
}

static void plane_pad_edges(OmctiPlane *p)
{
    const int pad = p->pad;
    for (int y = 0; y < p->h; y++) {
        uint8_t *row = p->data + y * p->stride;
        memset(row - pad, row[0], pad);
        memset(row + p->w, row[p->w - 1], pad);
    }
    const uint8_t *top = p->data - pad;
    const uint8_t *bottom = p->data + (p->h - 1) * p->stride - pad;
    const size_t len = (size_t)p->w + 2 * pad;
    for (int y = 1; y <= pad; y++) {
        memcpy(p->data - y * p->stride - pad, top, len);
        memcpy(p->data + (p->h - 1 + y) * p->stride - pad, bottom, len);
    }
}

void frame_pad_edges(OmctiFrame *f)
{
    for (int i = 0; i < 3; i++)
        plane_pad_edges(&f->p[i]);
}

void frame_copy_in(OmctiFrame *f, const OmctiPicture *pic)
{
    frame_copy_in_threads(f, pic, 1);
}

enum { FRAME_COPY_PARALLEL_MIN = 32 << 20 };

/* Row r of the three planes' rows, Y then U then V. */
static void copy_row(OmctiFrame *f, const OmctiPicture *pic, int h0, int h1, int r)
{
    const int i = r < h0 ? 0 : r < h0 + h1 ? 1 : 2;
    const int y = r - (i == 0 ? 0 : i == 1 ? h0 : h0 + h1);
    OmctiPlane *p = &f->p[i];
    memcpy(p->data + y * p->stride, pic->data[i] + y * pic->stride[i], (size_t)p->w);
}

void frame_copy_in_threads(OmctiFrame *f, const OmctiPicture *pic, int threads)
{
    (void)threads; /* without OpenMP */
    /* The rows of the three planes in one loop, on the team only for
     * pictures of FRAME_COPY_PARALLEL_MIN bytes or more: a fork and join
     * costs about a millisecond where the threads sleep between loops
     * (src/motion/pyramid.c), more than copying a 1080p picture (0.3 ms;
     * on the team, three loops a frame, 1.1-1.5 ms). */
    const int h0 = f->p[0].h, h1 = f->p[1].h, rows = h0 + h1 + f->p[2].h;
    const int par = threads > 1 && (int64_t)f->p[0].w * h0 * 3 / 2 >= FRAME_COPY_PARALLEL_MIN;
    /* Not through the region when it would run on one thread: libgomp
     * allocates (and frees) a team of one at every such fork. */
    if (par) {
#if OMCTI_HAVE_OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#endif
        for (int r = 0; r < rows; r++)
            copy_row(f, pic, h0, h1, r);
    } else {
        for (int r = 0; r < rows; r++)
            copy_row(f, pic, h0, h1, r);
    }
    frame_pad_edges(f);
}

void frame_as_picture(const OmctiFrame *f, OmctiPicture *pic)
{
    for (int i = 0; i < 3; i++) {
        pic->data[i] = f->p[i].data;
        pic->stride[i] = f->p[i].stride;
    }
    pic->width = f->width;
    pic->height = f->height;
}

int picture_check(const OmctiPicture *pic, int width, int height, const char *what, char *err,
                  size_t errlen)
{
    if (!pic)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "no %s picture", what);
    if (pic->width != width || pic->height != height)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "%s picture size %dx%d differs from the stream's %dx%d", what,
                         pic->width, pic->height, width, height);
    for (int i = 0; i < 3; i++) {
        const int w = i ? chroma_size(width) : width;
        if (!pic->data[i])
            return set_error(err, errlen, OMCTI_ERR_INVALID, "%s picture's plane %d has no data",
                             what, i);
        if (pic->stride[i] < w && pic->stride[i] > -w)
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "%s picture's plane %d has its rows %td bytes apart, closer than "
                             "its width (%d)", what, i, pic->stride[i], w);
    }
    return 0;
}

void picture_copy(OmctiPicture *dst, const OmctiPicture *src)
{
    for (int i = 0; i < 3; i++) {
        int w = i ? chroma_size(src->width) : src->width;
        int h = i ? chroma_size(src->height) : src->height;
        for (int y = 0; y < h; y++)
            memcpy(dst->data[i] + y * dst->stride[i], src->data[i] + y * src->stride[i], w);
    }
}
