/* Textures for the tests. smooth_texture(): a smooth random texture, like a
 * photograph's: random levels (40..167) on an 8-pixel grid, bilinear in
 * between; not flat anywhere, and no line stands out from its neighbours.
 * x, y >= 0. */
#ifndef OMCTI_TESTS_TEXTURE_H
#define OMCTI_TESTS_TEXTURE_H

#include <stdint.h>
#include <stdlib.h>

static inline int texture_grid(int i, int j)
{
    uint32_t v = (uint32_t)i * 73856093u ^ (uint32_t)j * 19349663u;
    v ^= v >> 13;
    v *= 0x5bd1e995u;
    v ^= v >> 15;
    return 40 + (int)(v & 127);
}

static inline uint8_t smooth_texture(int x, int y)
{
    const int i = x >> 3, j = y >> 3, fx = x & 7, fy = y & 7;
    const int top = texture_grid(i, j) * (8 - fx) + texture_grid(i + 1, j) * fx;
    const int bottom = texture_grid(i, j + 1) * (8 - fx) + texture_grid(i + 1, j + 1) * fx;
    return (uint8_t)((top * (8 - fy) + bottom * fy + 32) >> 6);
}

/* Multi-octave value noise, bilinear between random grid points (levels
 * around 128): texture at every scale, so that the top level of a picture
 * pyramid sees structure. A w x h plane from malloc (exits when out of
 * memory); the same seed gives the same plane. */
static inline uint8_t *value_noise_texture(int w, int h, uint32_t seed)
{
    uint8_t *t = (uint8_t *)calloc((size_t)w * h, 1);
    int *acc = (int *)calloc((size_t)w * h, sizeof *acc);
    if (!t || !acc)
        exit(1);
    static const int cells[4] = { 96, 32, 10, 3 }, amp[4] = { 120, 70, 40, 20 };
    uint64_t s = seed | 1;
    for (int o = 0; o < 4; o++) {
        const int c = cells[o], gw = w / c + 2, gh = h / c + 2;
        int *g = (int *)malloc((size_t)gw * gh * sizeof *g);
        if (!g)
            exit(1);
        for (int i = 0; i < gw * gh; i++) {
            s ^= s << 13; /* xorshift64 */
            s ^= s >> 7;
            s ^= s << 17;
            g[i] = (int)((uint32_t)(s >> 11) % 256) - 128;
        }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int gx = x / c, gy = y / c, fx = x % c, fy = y % c;
                const int *r0 = g + gy * gw + gx, *r1 = r0 + gw;
                const int top = r0[0] * (c - fx) + r0[1] * fx;
                const int bot = r1[0] * (c - fx) + r1[1] * fx;
                acc[(size_t)y * w + x] += (top * (c - fy) + bot * fy) * amp[o] / (c * c * 128);
            }
        free(g);
    }
    for (size_t i = 0; i < (size_t)w * h; i++) {
        const int v = 128 + acc[i] / 2;
        t[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    free(acc);
    return t;
}

#endif
