/* C reference of the filter DSP table (mc_dsp.h) and the run-time choice. */
#include <stdlib.h>

#include "filters/mc_dsp.h"
#include "src/cpu.h"

/* One bicubic sample block (the arithmetic of mc_block.h mc_cubic_px()
 * where no read needs clamping). */
static void cubic_c(uint16_t *dst, const uint8_t *q, ptrdiff_t qs, int fx, int fy, int w, int h)
{
    int16_t tmp[35 * 32];
    const int8_t *cx = mc_cubic_taps[fx], *cy = mc_cubic_taps[fy];
    for (int r = 0; r < h + 3; r++) {
        const uint8_t *s = q + (r - 1) * qs;
        int16_t *t = tmp + r * w;
        for (int x = 0; x < w; x++)
            t[x] = (int16_t)(cx[0] * s[x - 1] + cx[1] * s[x] + cx[2] * s[x + 1] + cx[3] * s[x + 2]);
    }
    for (int y = 0; y < h; y++) {
        const int16_t *t0 = tmp + y * w, *t1 = t0 + w, *t2 = t1 + w, *t3 = t2 + w;
        for (int x = 0; x < w; x++) {
            int v = cy[0] * t0[x] + cy[1] * t1[x] + cy[2] * t2[x] + cy[3] * t3[x] + 128;
            v = v < 0 ? 0 : v >> 8;
            dst[y * w + x] = (uint16_t)(v > 4080 ? 4080 : v);
        }
    }
}

static void pred2_c(uint16_t *dst, ptrdiff_t ds, const uint8_t *p, ptrdiff_t ps, int pfx,
                    int pfy, const uint8_t *n, ptrdiff_t ns, int nfx, int nfy, int w, int h,
                    int wt)
{
    uint16_t a[32 * 32], b[32 * 32];
    cubic_c(a, p, ps, pfx, pfy, w, h);
    cubic_c(b, n, ns, nfx, nfy, w, h);
    const int wp = 256 - wt;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            dst[y * ds + x] = (uint16_t)((wp * a[y * w + x] + wt * b[y * w + x] + 128) >> 8);
}

static uint32_t sad_bilin_c(const uint8_t *p, ptrdiff_t ps, int pfx, int pfy, const uint8_t *n,
                            ptrdiff_t ns, int nfx, int nfy, int w, int h)
{
    const int p00 = (16 - pfx) * (16 - pfy), p01 = pfx * (16 - pfy);
    const int p10 = (16 - pfx) * pfy, p11 = pfx * pfy;
    const int n00 = (16 - nfx) * (16 - nfy), n01 = nfx * (16 - nfy);
    const int n10 = (16 - nfx) * nfy, n11 = nfx * nfy;
    uint32_t sad = 0;
    for (int y = 0; y < h; y++, p += ps, n += ns)
        for (int x = 0; x < w; x++) {
            const int a = (p00 * p[x] + p01 * p[x + 1] + p10 * p[ps + x] + p11 * p[ps + x + 1] + 8) >> 4;
            const int b = (n00 * n[x] + n01 * n[x + 1] + n10 * n[ns + x] + n11 * n[ns + x + 1] + 8) >> 4;
            sad += (uint32_t)abs(a - b);
        }
    return sad;
}

static uint32_t sad_c(const uint8_t *p, ptrdiff_t ps, const uint8_t *n, ptrdiff_t ns, int w, int h)
{
    uint32_t sad = 0;
    for (int y = 0; y < h; y++, p += ps, n += ns)
        for (int x = 0; x < w; x++)
            sad += (uint32_t)abs(p[x] - n[x]);
    return sad;
}

static void obmc_c(uint8_t *dst, ptrdiff_t ds, const uint16_t *o, const uint16_t *hp,
                   const uint16_t *vp, ptrdiff_t ps, const int16_t *k0, const int16_t *k1,
                   const int16_t *k2, ptrdiff_t ks, int w, int h)
{
    for (int y = 0; y < h; y++, dst += ds, o += ps, hp += ps, vp += ps, k0 += ks, k1 += ks, k2 += ks)
        for (int x = 0; x < w; x++)
            dst[x] = (uint8_t)((k0[x] * o[x] + k1[x] * hp[x] + k2[x] * vp[x] + 64) >> 7);
}

static void put_c(uint8_t *dst, ptrdiff_t ds, const uint16_t *o, ptrdiff_t ps, int w, int h)
{
    for (int y = 0; y < h; y++, dst += ds, o += ps)
        for (int x = 0; x < w; x++)
            dst[x] = (uint8_t)((o[x] + 8) >> 4);
}

void mc_dsp_init(McDSP *d)
{
    *d = (McDSP){ .pred2 = pred2_c, .sad_bilin = sad_bilin_c, .sad = sad_c, .obmc = obmc_c,
                  .put = put_c, .level = CPU_LEVEL_C };
#if defined(__x86_64__) || defined(__i386__)
    mc_dsp_init_x86(d, cpu_flags());
#endif
}
