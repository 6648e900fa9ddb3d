/* libFuzzer target: the reader behind `omcti -i FILE` (FFmpeg's demuxers
 * and decoders through src/io/ffmpeg_read.c, or y4m) on mutated containers:
 * open, read every picture and touch it, then count the frames (the index
 * of --segment) and seek to the middle with it. Any outcome but a crash, a
 * sanitizer report, a hang or an error without a message is fine. Seeds:
 * corpus/ffmpeg_reader (tiny mkv, mp4, avi, nut, y4m files). */
#include <stdint.h>
#include <stdlib.h>

#include "src/io/io.h"
#include "tests/fuzz/fuzz_scratch.h"

#define MAX_PICTURES 120
#define MAX_PIXELS (2048 * 2048)   /* larger pictures only cost memory here */

static void touch(const OmctiPicture *pic)
{
    volatile unsigned sum = 0;
    for (int p = 0; p < 3; p++) {
        const int w = p ? (pic->width + 1) / 2 : pic->width;
        const int h = p ? (pic->height + 1) / 2 : pic->height;
        for (int y = 0; y < h; y++) sum += pic->data[p][(size_t)y * pic->stride[p] + w - 1];
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[256], err[1024];
    if (!size || scratch_write("in", data, size, path, sizeof path) < 0) return 0;
    VideoReader *r = NULL;
    if (video_reader_open(&r, path, err, sizeof err) < 0) {
        if (!err[0]) abort();   /* every refusal says why */
        return 0;
    }
    const VideoInfo *info = video_reader_info(r);
    if (info->width < 1 || info->height < 1) abort();
    if ((int64_t)info->width * info->height > MAX_PIXELS) {
        video_reader_close(&r);
        return 0;
    }
    OmctiPicture pic;
    int ret = 1;
    for (int i = 0; i < MAX_PICTURES && (ret = video_reader_read(r, &pic, err, sizeof err)) > 0;
         i++) {
        if (pic.width != info->width || pic.height != info->height) break; /* refused later */
        touch(&pic);
    }
    if (ret < 0 && !err[0]) abort();
    video_reader_close(&r);

    /* The index and an exact seek, as a segment does. */
    if (video_reader_open(&r, path, err, sizeof err) < 0) return 0;
    FrameIndex ix;
    if (video_reader_index(r, &ix, err, sizeof err) == 0) {
        if (ix.count < 0) abort();
        video_reader_close(&r);
        if (ix.count > 1 && video_reader_open(&r, path, err, sizeof err) == 0) {
            if (video_reader_seek(r, &ix, ix.count / 2, err, sizeof err) == 0 &&
                video_reader_read(r, &pic, err, sizeof err) > 0 &&
                pic.width == video_reader_info(r)->width &&
                pic.height == video_reader_info(r)->height)
                touch(&pic);
        }
        frame_index_free(&ix);
    } else if (!err[0]) {
        abort();
    }
    video_reader_close(&r);
    return 0;
}
