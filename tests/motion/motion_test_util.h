/* Helpers shared by the motion tests: deterministic content, padded frames
 * through the library's frame code, and an independent naive search. */
#ifndef OMCTI_TESTS_MOTION_UTIL_H
#define OMCTI_TESTS_MOTION_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/frame.h"
#include "src/motion/engine.h"

static inline uint32_t mt_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

/* A plain luma image (no padding), what the naive search reads. */
typedef struct MtImage {
    int w, h;
    uint8_t *y;
} MtImage;

static inline int mt_image_alloc(MtImage *im, int w, int h)
{
    im->w = w;
    im->h = h;
    im->y = malloc((size_t)w * h);
    return im->y ? 0 : -1;
}

static inline uint8_t mt_px(const MtImage *im, int x, int y)
{
    /* Edge replication, the frames' padding contract. */
    x = x < 0 ? 0 : x >= im->w ? im->w - 1 : x;
    y = y < 0 ? 0 : y >= im->h ? im->h - 1 : y;
    return im->y[(size_t)y * im->w + x];
}

/* Copies an image into a padded library frame (chroma mid-grey). */
static inline int mt_frame_from_image(OmctiFrame *f, const MtImage *im, int pad)
{
    if (frame_alloc(f, im->w, im->h, pad) < 0)
        return -1;
    const int cw = chroma_size(im->w), ch = chroma_size(im->h);
    uint8_t *chroma = malloc((size_t)cw * ch);
    if (!chroma)
        return -1;
    memset(chroma, 128, (size_t)cw * ch);
    OmctiPicture pic = {
        .data = { im->y, chroma, chroma },
        .stride = { im->w, cw, cw },
        .width = im->w,
        .height = im->h,
    };
    frame_copy_in(f, &pic);
    free(chroma);
    return 0;
}

/* Lexicographic (sad, |dx|+|dy|, dy, dx): the tie rule of the contract,
 * written out independently of mv_better(). */
static inline int mt_less(uint32_t s, int dx, int dy, uint32_t bs, int bdx, int bdy)
{
    const long long a[4] = { s, abs(dx) + abs(dy), dy, dx };
    const long long b[4] = { bs, abs(bdx) + abs(bdy), bdy, bdx };
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* Naive exhaustive search of block (bx, by) of cur in ref. */
static inline void mt_naive_full(const MtImage *cur, const MtImage *ref, int block, int range,
                                 int bx, int by, MotionVector *mv, uint32_t *sad)
{
    uint32_t best = UINT32_MAX;
    int bdx = 0, bdy = 0;
    const int x0 = bx * block, y0 = by * block;
    for (int dy = -range; dy <= range; dy++)
        for (int dx = -range; dx <= range; dx++) {
            uint32_t s = 0;
            for (int y = 0; y < block; y++)
                for (int x = 0; x < block; x++)
                    s += (uint32_t)abs(mt_px(cur, x0 + x, y0 + y) -
                                       mt_px(ref, x0 + x + dx, y0 + y + dy));
            if (best == UINT32_MAX || mt_less(s, dx, dy, best, bdx, bdy)) {
                best = s;
                bdx = dx;
                bdy = dy;
            }
        }
    mv->x = (int16_t)bdx;
    mv->y = (int16_t)bdy;
    *sad = best;
}

/* Texture with detail at every scale: hashed noise, optionally smoothed
 * (so that diamond search has a basin to descend), sampled at (x, y) of an
 * infinite plane so that shifted copies are exact. */
static inline uint8_t mt_noise_at(int x, int y, uint32_t seed)
{
    uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return (uint8_t)(h >> 24);
}

/* Smooth 2-D texture: hashed noise blurred by three box passes of radius
 * `radius` (close to a Gaussian), contrast stretched. Its SAD surface is a
 * single basin around the true shift, about `radius` px wide, so a descent
 * search from (0,0) can reach shifts of that order; no 1-D structure, so no
 * aperture-problem valleys. Returns a (w x h) image; caller frees. */
static inline uint8_t *mt_smooth_texture(int w, int h, int radius, uint32_t seed)
{
    const size_t n = (size_t)w * h;
    double *t = malloc(n * sizeof *t), *u = malloc(n * sizeof *u);
    uint8_t *out = malloc(n);
    if (!t || !u || !out)
        exit(1);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            t[(size_t)y * w + x] = mt_noise_at(x, y, seed);
    for (int pass = 0; pass < 6; pass++) {   /* 3 x horizontal + vertical */
        const int horiz = !(pass & 1);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                double sum = 0;
                int cnt = 0;
                for (int k = -radius; k <= radius; k++) {
                    const int xx = horiz ? x + k : x, yy = horiz ? y : y + k;
                    if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                        continue;
                    sum += t[(size_t)yy * w + xx];
                    cnt++;
                }
                u[(size_t)y * w + x] = sum / cnt;
            }
        double *tmp = t;
        t = u;
        u = tmp;
    }
    double lo = 1e9, hi = -1e9;
    for (size_t i = 0; i < n; i++) {
        lo = t[i] < lo ? t[i] : lo;
        hi = t[i] > hi ? t[i] : hi;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(255.0 * (t[i] - lo) / (hi - lo + 1e-9) + 0.5);
    free(t);
    free(u);
    return out;
}

#endif
