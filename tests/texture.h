/* A smooth random texture for the tests, like a photograph's: random levels
 * (40..167) on an 8-pixel grid, bilinear in between; not flat anywhere, and
 * no line stands out from its neighbours. x, y >= 0. */
#ifndef OMCTI_TESTS_TEXTURE_H
#define OMCTI_TESTS_TEXTURE_H

#include <stdint.h>

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

#endif
