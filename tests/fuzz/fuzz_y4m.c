/* libFuzzer target: the y4m reader on arbitrary bytes must return a frame,
 * the end, or an error — never crash, hang or read out of bounds. */
#include <stdint.h>
#include <stdio.h>

#include "src/io/io_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f) return 0;
    VideoReader *r = NULL;
    char err[512];
    if (y4m_reader_open_stream(&r, f, 1, "fuzz", err, sizeof err) < 0)
        return 0;
    OmctiPicture pic;
    for (int i = 0; i < 64 && video_reader_read(r, &pic, err, sizeof err) > 0; i++) {
        /* Touch the whole picture so an undersized plane would be caught. */
        volatile unsigned sum = 0;
        for (int p = 0; p < 3; p++) {
            int w = p ? (pic.width + 1) / 2 : pic.width, h = p ? (pic.height + 1) / 2 : pic.height;
            for (int y = 0; y < h; y++) sum += pic.data[p][y * pic.stride[p] + w - 1];
        }
    }
    video_reader_close(&r);
    return 0;
}
