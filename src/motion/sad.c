/* Plain C reference SADs and the run-time choice of variants. */
#include "src/motion/sad.h"

static inline uint32_t sad_c(const uint8_t *a, ptrdiff_t as,
                             const uint8_t *b, ptrdiff_t bs, int w, int h)
{
    uint32_t sum = 0;
    for (int y = 0; y < h; y++, a += as, b += bs)
        for (int x = 0; x < w; x++)
            sum += (uint32_t)(a[x] > b[x] ? a[x] - b[x] : b[x] - a[x]);
    return sum;
}

static uint32_t sad_8x8_c(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs)
{
    return sad_c(a, as, b, bs, 8, 8);
}

static uint32_t sad_16x16_c(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs)
{
    return sad_c(a, as, b, bs, 16, 16);
}

static uint32_t sad_32x32_c(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs)
{
    return sad_c(a, as, b, bs, 32, 32);
}

static uint32_t rect_c(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, int w,
                       int h)
{
    return sad_c(a, as, b, bs, w, h);
}

static void down2_c(uint8_t *dst, const uint8_t *r0, const uint8_t *r1, int n)
{
    for (int x = 0; x < n; x++)
        dst[x] = (uint8_t)((r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1] + 2) >> 2);
}

static void x4_8x8_c(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref, ptrdiff_t rs,
                     const ptrdiff_t off[4], uint32_t out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = sad_c(cur, cs, ref + off[k], rs, 8, 8);
}

static void x4_16x16_c(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref, ptrdiff_t rs,
                       const ptrdiff_t off[4], uint32_t out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = sad_c(cur, cs, ref + off[k], rs, 16, 16);
}

static void x4_32x32_c(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref, ptrdiff_t rs,
                       const ptrdiff_t off[4], uint32_t out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = sad_c(cur, cs, ref + off[k], rs, 32, 32);
}

static inline void grid_c(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                          ptrdiff_t rs, int nx, int ny, uint32_t *out,
                          ptrdiff_t os, int block)
{
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++)
            out[y * os + x] = sad_c(cur, cs, ref + y * rs + x, rs, block, block);
}

static void grid_8x8_c(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                       ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    grid_c(cur, cs, ref, rs, nx, ny, out, os, 8);
}

static void grid_16x16_c(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                         ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    grid_c(cur, cs, ref, rs, nx, ny, out, os, 16);
}

static void grid_32x32_c(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref,
                         ptrdiff_t rs, int nx, int ny, uint32_t *out, ptrdiff_t os)
{
    grid_c(cur, cs, ref, rs, nx, ny, out, os, 32);
}

static SAD_DEFINE_PICK_BEST(pick_best_c, )

void sad_dsp_init(SadDSP *d)
{
    *d = (SadDSP){
        .sad = { sad_8x8_c, sad_16x16_c, sad_32x32_c },
        .x4 = { x4_8x8_c, x4_16x16_c, x4_32x32_c },
        .grid = { grid_8x8_c, grid_16x16_c, grid_32x32_c },
        .rect = rect_c,
        .down2 = down2_c,
        .pick = pick_best_c,
        .level = CPU_LEVEL_C,
    };

    const int level = cpu_level_of(cpu_flags());
#if defined(__x86_64__) || defined(__i386__)
    if (level > CPU_LEVEL_C)
        sad_dsp_init_x86(d, level);
#endif
}
