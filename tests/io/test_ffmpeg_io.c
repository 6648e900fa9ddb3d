/* Integration tests of the FFmpeg front and back end, through the library's
 * io API (video_reader_* / video_writer_*), checked against libavformat.
 *
 *   test_ffmpeg_io core     write/read round trips, exact timing, lossless
 *                           bit-exactness, reader and writer errors
 *   test_ffmpeg_io cli      inputs made with the ffmpeg program: audio copy,
 *                           audio-only, images, other pixel formats
 *                           (exit 77 when there is no ffmpeg program)
 *   test_ffmpeg_io samples  every clip of $OMCTI_SAMPLES (77 when absent)
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>

#include "src/io/io.h"
#include "tests/check.h"
#include "tests/io/test_ffmpeg_io.h"

static char dir[256];

void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

/* A moving pattern that differs in every plane and every picture. */
void fill(OmctiPicture *p, uint8_t *buf, int w, int h, int k)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    *p = (OmctiPicture){ { buf, buf + w * h, buf + w * h + cw * ch }, { w, cw, cw }, w, h };
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            buf[y * w + x] = (uint8_t)(16 + ((x + 2 * k) ^ (y + k)) % 220);
    for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++) {
            p->data[1][y * cw + x] = (uint8_t)(64 + (x * 3 + k) % 128);
            p->data[2][y * cw + x] = (uint8_t)(64 + (y * 5 + 2 * k) % 128);
        }
}

int same_picture(const OmctiPicture *a, const OmctiPicture *b)
{
    if (a->width != b->width || a->height != b->height)
        return 0;
    for (int i = 0; i < 3; i++) {
        int w = i ? (a->width + 1) / 2 : a->width, h = i ? (a->height + 1) / 2 : a->height;
        for (int y = 0; y < h; y++)
            if (memcmp(a->data[i] + y * a->stride[i], b->data[i] + y * b->stride[i], w))
                return 0;
    }
    return 1;
}

Probe probe(const char *path)
{
    Probe pr = { 0 };
    AVFormatContext *fmt = NULL;
    if (avformat_open_input(&fmt, path, NULL, NULL) < 0)
        return pr;
    if (avformat_find_stream_info(fmt, NULL) < 0) {
        avformat_close_input(&fmt);
        return pr;
    }
    int vs = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (vs < 0) {
        avformat_close_input(&fmt);
        return pr;
    }
    AVStream *st = fmt->streams[vs];
    pr.avg = st->avg_frame_rate;
    pr.rfr = st->r_frame_rate;
    snprintf(pr.vcodec, sizeof pr.vcodec, "%s", avcodec_get_name(st->codecpar->codec_id));
    const char *pf = av_get_pix_fmt_name(st->codecpar->format);
    snprintf(pr.pix_fmt, sizeof pr.pix_fmt, "%s", pf ? pf : "none");
    pr.duration = fmt->duration > 0 ? fmt->duration / (double)AV_TIME_BASE : -1;
    for (unsigned i = 0; i < fmt->nb_streams; i++)
        pr.nb_audio += fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO;

    const AVCodec *dc = avcodec_find_decoder(st->codecpar->codec_id);
    AVCodecContext *dec = avcodec_alloc_context3(dc);
    avcodec_parameters_to_context(dec, st->codecpar);
    avcodec_open2(dec, dc, NULL);
    AVPacket *pkt = av_packet_alloc();
    AVFrame *fr = av_frame_alloc();
    while (av_read_frame(fmt, pkt) >= 0) {
        AVStream *s = fmt->streams[pkt->stream_index];
        double end = (pkt->pts + pkt->duration) * av_q2d(s->time_base);
        if (pkt->stream_index == vs) {
            pr.vpackets++;
            if (end > pr.vend)
                pr.vend = end;
            avcodec_send_packet(dec, pkt);
            while (avcodec_receive_frame(dec, fr) == 0)
                pr.vframes++;
        } else if (s->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) {
            pr.apackets++;
            if (end > pr.aend)
                pr.aend = end;
        }
        av_packet_unref(pkt);
    }
    avcodec_send_packet(dec, NULL);
    while (avcodec_receive_frame(dec, fr) == 0)
        pr.vframes++;
    av_frame_free(&fr);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    avformat_close_input(&fmt);
    pr.ok = 1;
    return pr;
}
/* Reads the file with the library's reader; counts pictures and, when
 * compare is set, checks each against the pattern. */
int64_t read_all(TestState *ts, const char *path, VideoInfo *info, int compare,
                 int *exact)
{
    char err[512] = "";
    VideoReader *r = NULL;
    int ret = video_reader_open(&r, path, err, sizeof err);
    CHECK(ts, ret == 0, "%s: %s", path, err);
    if (ret < 0)
        return -1;
    *info = *video_reader_info(r);
    uint8_t *buf = malloc((size_t)info->width * info->height * 3);
    int64_t n = 0;
    *exact = 1;
    OmctiPicture pic, ref;
    while ((ret = video_reader_read(r, &pic, err, sizeof err)) == 1) {
        if (compare) {
            fill(&ref, buf, info->width, info->height, (int)n);
            *exact &= same_picture(&pic, &ref);
        }
        n++;
    }
    CHECK(ts, ret == 0, "%s: read: %s", path, err);
    free(buf);
    video_reader_close(&r);
    return n;
}
void expect_read_error(TestState *ts, const char *path, const char *needle)
{
    char err[512] = "";
    VideoReader *r = NULL;
    int ret = video_reader_open(&r, path, err, sizeof err);
    CHECK(ts, ret < 0 && r == NULL, "%s: opened, expected an error", path);
    CHECK(ts, strstr(err, path) != NULL, "%s: the message does not name the file: %s", path, err);
    CHECK(ts, strstr(err, needle) != NULL, "%s: message '%s' lacks '%s'", path, err, needle);
    CHECK(ts, !strchr(err, '\n'), "%s: message is not one line", path);
    if (r)
        video_reader_close(&r);
}
int have_ffmpeg_cli(void)
{
    return system("ffmpeg -hide_banner -version >/dev/null 2>&1") == 0;
}

int run(const char *fmt, const char *a)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, a, a, a);
    return system(cmd);
}
static void remove_dir(const char *p)
{
    DIR *d = opendir(p);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char f[1024];
        snprintf(f, sizeof f, "%s/%s", p, e->d_name);
        unlink(f);
    }
    if (d)
        closedir(d);
    rmdir(p);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "core";
    TestState ts = { 0 };
    if (!strcmp(mode, "cli") && !have_ffmpeg_cli()) {
        printf("no ffmpeg program: skipped\n");
        return SKIP;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/omcti-io-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int rc = 0;
    if (!strcmp(mode, "core"))
        test_core(&ts);
    else if (!strcmp(mode, "cli"))
        test_cli_inputs(&ts);
    else if (!strcmp(mode, "samples"))
        rc = test_samples(&ts);
    else {
        fprintf(stderr, "usage: %s core|cli|samples\n", argv[0]);
        rc = 2;
    }
    if (!getenv("OMCTI_KEEP_TMP"))
        remove_dir(dir);
    else
        printf("kept %s\n", dir);
    if (rc)
        return rc == SKIP && ts.failures ? 1 : rc;
    return test_finish(&ts, mode);
}
