/* C reference of the filter DSP table (mc_dsp.h), built from the per-pixel
 * arithmetic of mc_block.h, and the run-time choice. */
#include <stdlib.h>

#include "filters/mc_dsp.h"
#include "src/cpu.h"

/* The C reference: the per-pixel arithmetic of mc_block.h, on a plane view
 * whose origin is moved so that every read of the footprint is at a
 * coordinate >= 0 and inside (no clamping happens). */
static void pred2_c(uint16_t *dst, ptrdiff_t ds, const uint8_t *p, ptrdiff_t ps, int pfx,
                    int pfy, const uint8_t *n, ptrdiff_t ns, int nfx, int nfy, int w, int h,
                    int wt)
{
    /* reads rows -1 .. h+1 and columns -1 .. w+1 */
    const McPlaneView pv = { p - ps - 1, (int)ps, w + 3, h + 3 };
    const McPlaneView nv = { n - ns - 1, (int)ns, w + 3, h + 3 };
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            dst[y * ds + x] = (uint16_t)mc_pred_mix(mc_cubic_px(&pv, x + 1, y + 1, pfx, pfy),
                                                    mc_cubic_px(&nv, x + 1, y + 1, nfx, nfy), wt);
}

static uint32_t sad_bilin_c(const uint8_t *p, ptrdiff_t ps, int pfx, int pfy, const uint8_t *n,
                            ptrdiff_t ns, int nfx, int nfy, int w, int h, uint32_t bound)
{
    /* reads rows 0 .. h and columns 0 .. w */
    const McPlaneView pv = { p, (int)ps, w + 1, h + 1 }, nv = { n, (int)ns, w + 1, h + 1 };
    uint32_t sad = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            sad += (uint32_t)mc_abs(mc_bilin_px(&pv, x, y, pfx, pfy) -
                                    mc_bilin_px(&nv, x, y, nfx, nfy));
        if (y % MC_SAD_STRIP == MC_SAD_STRIP - 1 && sad >= bound)
            return sad;
    }
    return sad;
}

static uint32_t sad_c(const uint8_t *p, ptrdiff_t ps, const uint8_t *n, ptrdiff_t ns, int w, int h,
                      uint32_t bound)
{
    uint32_t sad = 0;
    for (int y = 0; y < h; y++, p += ps, n += ns) {
        for (int x = 0; x < w; x++)
            sad += (uint32_t)abs(p[x] - n[x]);
        if (y % MC_SAD_STRIP == MC_SAD_STRIP - 1 && sad >= bound)
            return sad;
    }
    return sad;
}

static void obmc_c(uint8_t *dst, ptrdiff_t ds, const uint16_t *o, const uint16_t *hp,
                   const uint16_t *vp, ptrdiff_t ps, const int16_t *k0, const int16_t *k1,
                   const int16_t *k2, ptrdiff_t ks, int w, int h)
{
    for (int y = 0; y < h; y++, dst += ds, o += ps, hp += ps, vp += ps, k0 += ks, k1 += ks, k2 += ks)
        for (int x = 0; x < w; x++)
            dst[x] = (uint8_t)mc_obmc8(k0[x], k1[x], k2[x], o[x], hp[x], vp[x]);
}

static void put_c(uint8_t *dst, ptrdiff_t ds, const uint16_t *o, ptrdiff_t ps, int w, int h)
{
    for (int y = 0; y < h; y++, dst += ds, o += ps)
        for (int x = 0; x < w; x++)
            dst[x] = (uint8_t)mc_put16(o[x]);
}

void mc_dsp_init(McDSP *d)
{
    *d = (McDSP){ .pred2 = pred2_c, .sad_bilin = sad_bilin_c, .sad = sad_c, .obmc = obmc_c,
                  .put = put_c, .level = CPU_LEVEL_C };
#if defined(__x86_64__) || defined(__i386__)
    mc_dsp_init_x86(d, cpu_flags());
#endif
}
