/* Picture quality metrics of `omcti eval`.
 *
 * PSNR: 10*log10(255^2 / MSE), capped at METRICS_PSNR_CAP dB (identical
 * pictures would be infinite; the cap keeps means finite and is reported).
 * PSNR-YUV pools the squared errors of all samples of Y, U and V (for 4:2:0
 * that weights Y:U:V as 4:1:1).
 * SSIM-Y: Wang et al. on 8x8 windows placed every 4 pixels (as x264 and
 * FFmpeg's ssim filter), C1 = (0.01*255)^2, C2 = (0.03*255)^2, averaged over
 * the windows; pictures smaller than 8x8 use one window of their size. */
#ifndef OMCTI_CLI_METRICS_H
#define OMCTI_CLI_METRICS_H

#include <stdint.h>

#include "omcti.h"

#define METRICS_PSNR_CAP 100.0

typedef struct PictureMetrics {
    double psnr_y, psnr_yuv, ssim_y;
    uint64_t sse[3];
} PictureMetrics;

double metrics_psnr(uint64_t sse, uint64_t samples);
uint64_t metrics_sse(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, int w, int h);
double metrics_ssim(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, int w, int h);
/* All metrics of picture b against reference a (same size). */
void metrics_picture(const OmctiPicture *a, const OmctiPicture *b, PictureMetrics *m);

#endif
