/* Content and y4m helpers shared by the CUDA test and benchmark. */
#ifndef OMCTI_TESTS_CUDA_UTIL_H
#define OMCTI_TESTS_CUDA_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/frame.h"
#include "tests/motion/motion_test_util.h"

typedef MtImage Image;

static inline uint32_t hash3(int x, int y, uint32_t seed)
{
    uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    h ^= h >> 15;
    return h;
}

/* Smooth-ish texture on the infinite plane: value noise on a 6-px lattice,
 * bilinearly interpolated, plus fine noise, so that SAD surfaces have basins
 * (diamond search walks) and shifted copies are exact. */
static inline int texture(int x, int y, uint32_t seed)
{
    const int c = 6;
    const int gx = x >= 0 ? x / c : (x - c + 1) / c, gy = y >= 0 ? y / c : (y - c + 1) / c;
    const int fx = x - gx * c, fy = y - gy * c;
    const int v00 = hash3(gx, gy, seed) >> 24, v10 = hash3(gx + 1, gy, seed) >> 24;
    const int v01 = hash3(gx, gy + 1, seed) >> 24, v11 = hash3(gx + 1, gy + 1, seed) >> 24;
    const int top = v00 * (c - fx) + v10 * fx, bot = v01 * (c - fx) + v11 * fx;
    return (top * (c - fy) + bot * fy) / (c * c);
}

enum { CONTENT_MOTION, CONTENT_NOISE, CONTENT_TIES, CONTENT_ZOOM };

/* Frame k of a clip of the given content. MOTION: a background panning by
 * (3,-2) px a frame and a square object moving by (-9,+6), with sensor
 * noise; NOISE: independent noise; TIES: a flat picture with vertical
 * stripes of period 4 (the SAD is equal for many vectors: only the tie
 * rule decides); ZOOM: the texture magnified by 4 % a frame about a point
 * off the centre (the pair's camera model, filters/mc_camera.c). */
static inline void make_frame(Image *im, int content, int k, uint32_t seed)
{
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            int v;
            switch (content) {
            case CONTENT_NOISE:
                v = hash3(x, y, seed + 7919u * (uint32_t)k) >> 24;
                break;
            case CONTENT_TIES:
                v = (x & 3) < 2 ? 60 : 180;
                break;
            case CONTENT_ZOOM: {
                const int cx = im->w * 3 / 7, cy = im->h * 4 / 7, s = 1000 + 40 * k;
                v = texture(cx * 3 + (x - cx) * 3000 / s, cy * 3 + (y - cy) * 3000 / s, seed) +
                    (int)(hash3(x, y, seed * 31u + (uint32_t)k) >> 30) - 2;
                v = v < 0 ? 0 : v > 255 ? 255 : v;
                break;
            }
            default: {
                const int ox = im->w / 3 - 9 * k, oy = im->h / 3 + 6 * k, os = im->w / 5 + 8;
                if (x >= ox && x < ox + os && y >= oy && y < oy + os)
                    v = 255 - texture(x - ox, y - oy, seed ^ 0x5555u);
                else
                    v = texture(x - 3 * k, y + 2 * k, seed);
                v += (int)(hash3(x, y, seed * 31u + (uint32_t)k) >> 30) - 2;
                v = v < 0 ? 0 : v > 255 ? 255 : v;
            }
            }
            im->y[(size_t)y * im->w + x] = (uint8_t)v;
        }
}

static inline int frame_from(OmctiFrame *f, const Image *im, int pad, uint64_t serial)
{
    if (mt_frame_from_image(f, im, pad) < 0)
        return -1;
    f->serial = serial;
    return 0;
}

/* Number of pixels of the pictures a and b (same size) that differ, the
 * first few named on stderr. */
static inline int yuv_compare(const char *what, const OmctiPicture *a, const OmctiPicture *b)
{
    int bad = 0;
    for (int c = 0; c < 3; c++) {
        const int w = c ? chroma_size(a->width) : a->width, h = c ? chroma_size(a->height) : a->height;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int u = a->data[c][(ptrdiff_t)y * a->stride[c] + x];
                const int v = b->data[c][(ptrdiff_t)y * b->stride[c] + x];
                if (u != v && bad++ < 3)
                    fprintf(stderr, "  %s plane %d (%d,%d): %d vs %d\n", what, c, x, y, u, v);
            }
    }
    return bad;
}

/* Reads the luma of frames 0..n-1 of an 8-bit y4m (4:2:0 or mono). */
static inline int read_y4m(const char *path, Image *frames, int n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    char line[512];
    if (!fgets(line, sizeof line, fp) || strncmp(line, "YUV4MPEG2 ", 10)) {
        fclose(fp);
        return -1;
    }
    int w = 0, h = 0, mono = 0;
    for (char *t = strtok(line + 10, " \n"); t; t = strtok(NULL, " \n")) {
        if (t[0] == 'W') w = atoi(t + 1);
        if (t[0] == 'H') h = atoi(t + 1);
        if (t[0] == 'C' && !strncmp(t, "Cmono", 5)) mono = 1;
        if (t[0] == 'C' && strncmp(t, "C420", 4) && !mono) {
            fclose(fp);
            return -1;
        }
    }
    if (w < 1 || h < 1) {
        fclose(fp);
        return -1;
    }
    const size_t ysz = (size_t)w * h, csz = mono ? 0 : 2 * (size_t)chroma_size(w) * chroma_size(h);
    uint8_t *skip = malloc(csz + 1);
    int got = 0;
    for (; got < n; got++) {
        if (!fgets(line, sizeof line, fp) || strncmp(line, "FRAME", 5))
            break;
        frames[got].w = w;
        frames[got].h = h;
        frames[got].y = malloc(ysz);
        if (!frames[got].y || fread(frames[got].y, 1, ysz, fp) != ysz ||
            fread(skip, 1, csz, fp) != csz) {
            free(frames[got].y);
            break;
        }
    }
    free(skip);
    fclose(fp);
    return got;
}


/* A clip of whole 4:2:0 pictures (for the interpolation tests). */
typedef struct YuvClip {
    int w, h, n;
    uint8_t **buf;      /* one allocation per picture: Y, U, V dense */
    OmctiPicture *pic;
} YuvClip;

static inline void yuv_clip_free(YuvClip *c)
{
    for (int i = 0; c->buf && i < c->n; i++)
        free(c->buf[i]);
    free(c->buf);
    free(c->pic);
    memset(c, 0, sizeof *c);
}

static inline int yuv_clip_alloc(YuvClip *c, int w, int h, int n)
{
    memset(c, 0, sizeof *c);
    c->w = w;
    c->h = h;
    c->buf = calloc((size_t)n, sizeof *c->buf);
    c->pic = calloc((size_t)n, sizeof *c->pic);
    if (!c->buf || !c->pic)
        return -1;
    const int cw = chroma_size(w), ch = chroma_size(h);
    const size_t ys = (size_t)w * h, cs = (size_t)cw * ch;
    for (int i = 0; i < n; i++) {
        c->buf[i] = malloc(ys + 2 * cs);
        if (!c->buf[i])
            return -1;
        c->n = i + 1;
        OmctiPicture p = { { c->buf[i], c->buf[i] + ys, c->buf[i] + ys + cs }, { w, cw, cw }, w, h };
        c->pic[i] = p;
    }
    return 0;
}

/* n pictures of a content (make_frame for luma; chroma: the same kind of
 * content at half size with other seeds, so chroma moves and has detail). */
static inline int yuv_clip_make(YuvClip *c, int w, int h, int n, int content, uint32_t seed)
{
    if (yuv_clip_alloc(c, w, h, n) < 0)
        return -1;
    const int cw = chroma_size(w), ch = chroma_size(h);
    for (int i = 0; i < n; i++) {
        Image y = { w, h, c->pic[i].data[0] };
        Image u = { cw, ch, c->pic[i].data[1] }, v = { cw, ch, c->pic[i].data[2] };
        make_frame(&y, content, i, seed);
        make_frame(&u, content, i, seed * 3u + 1u);
        make_frame(&v, content, i, seed * 5u + 2u);
    }
    return 0;
}

/* Up to n whole pictures of an 8-bit 4:2:0 y4m, starting at picture skip. */
static inline int yuv_clip_read(YuvClip *c, const char *path, int n, int skip)
{
    memset(c, 0, sizeof *c);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    char line[512];
    int w = 0, h = 0, ok = fgets(line, sizeof line, fp) && !strncmp(line, "YUV4MPEG2 ", 10);
    for (char *t = ok ? strtok(line + 10, " \n") : NULL; t; t = strtok(NULL, " \n")) {
        if (t[0] == 'W') w = atoi(t + 1);
        if (t[0] == 'H') h = atoi(t + 1);
        if (t[0] == 'C' && strncmp(t, "C420", 4)) ok = 0;
    }
    if (!ok || w < 1 || h < 1 || yuv_clip_alloc(c, w, h, n) < 0) {
        fclose(fp);
        yuv_clip_free(c);
        return -1;
    }
    const size_t sz = (size_t)w * h + 2 * (size_t)chroma_size(w) * chroma_size(h);
    int got = 0;
    for (int i = 0; got < n; i++) {
        if (!fgets(line, sizeof line, fp) || strncmp(line, "FRAME", 5) ||
            fread(c->buf[got], 1, sz, fp) != sz)
            break;
        if (i >= skip)
            got++;
    }
    fclose(fp);
    for (int i = got; i < c->n; i++)
        free(c->buf[i]);
    c->n = got;
    return got;
}

#endif
