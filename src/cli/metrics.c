#include <math.h>
#include <stddef.h>

#include "src/cli/metrics.h"

double metrics_psnr(uint64_t sse, uint64_t samples)
{
    if (!samples) return 0;
    if (!sse) return METRICS_PSNR_CAP;
    const double p = 10.0 * log10(255.0 * 255.0 * (double)samples / (double)sse);
    return p > METRICS_PSNR_CAP ? METRICS_PSNR_CAP : p;
}

uint64_t metrics_sse(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, int w, int h)
{
    uint64_t sse = 0;
    for (int y = 0; y < h; y++) {
        uint32_t row = 0; /* 255^2 * 16384 fits in 32 bits; flush per row */
        for (int x = 0; x < w; x++) {
            const int d = a[y * as + x] - b[y * bs + x];
            row += (uint32_t)(d * d);
        }
        sse += row;
    }
    return sse;
}

static double ssim_window(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs,
                          int w, int h)
{
    uint64_t sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint32_t pa = a[y * as + x], pb = b[y * bs + x];
            sa += pa; sb += pb;
            saa += pa * pa; sbb += pb * pb; sab += pa * pb;
        }
    const double n = (double)w * h;
    const double ma = sa / n, mb = sb / n;
    const double va = saa / n - ma * ma, vb = sbb / n - mb * mb, cov = sab / n - ma * mb;
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    return ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
}

double metrics_ssim(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, int w, int h)
{
    if (w < 8 || h < 8)
        return ssim_window(a, as, b, bs, w, h);
    double sum = 0;
    long n = 0;
    for (int y = 0; y + 8 <= h; y += 4)
        for (int x = 0; x + 8 <= w; x += 4) {
            sum += ssim_window(a + y * as + x, as, b + y * bs + x, bs, 8, 8);
            n++;
        }
    return sum / n;
}

void metrics_picture(const OmctiPicture *a, const OmctiPicture *b, PictureMetrics *m)
{
    uint64_t total = 0, samples = 0;
    for (int i = 0; i < 3; i++) {
        const int w = i ? (a->width + 1) / 2 : a->width, h = i ? (a->height + 1) / 2 : a->height;
        m->sse[i] = metrics_sse(a->data[i], a->stride[i], b->data[i], b->stride[i], w, h);
        total += m->sse[i];
        samples += (uint64_t)w * h;
    }
    m->psnr_y = metrics_psnr(m->sse[0], (uint64_t)a->width * a->height);
    m->psnr_yuv = metrics_psnr(total, samples);
    m->ssim_y = metrics_ssim(a->data[0], a->stride[0], b->data[0], b->stride[0], a->width,
                             a->height);
}
