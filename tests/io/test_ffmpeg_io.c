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

#define SKIP 77

static char dir[256];

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

/* A moving pattern that differs in every plane and every picture. */
static void fill(OmctiPicture *p, uint8_t *buf, int w, int h, int k)
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

static int same_picture(const OmctiPicture *a, const OmctiPicture *b)
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

/* What libavformat sees in a file. */
typedef struct Probe {
    int ok;
    char vcodec[32], pix_fmt[32];
    AVRational avg, rfr;
    int64_t vpackets, vframes;    /* packets of / pictures decoded from the video */
    int64_t apackets;
    double duration;              /* container duration, seconds            */
    double vend;                  /* end of the last video packet, seconds  */
    double aend;                  /* end of the last audio packet, seconds  */
    int nb_audio;
} Probe;

static Probe probe(const char *path)
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

/* Writes n pictures of the pattern; returns 0 on success. */
static int write_pattern(const char *path, int w, int h, int n, Rational fps,
                         const WriterOptions *wo, char *err, size_t errlen)
{
    VideoInfo info = { .width = w, .height = h, .fps = fps, .sar = { 1, 1 },
                       .nb_frames = n, .pix_fmt = "yuv420p", .interlace = 'p' };
    VideoWriter *wr = NULL;
    int ret = video_writer_open(&wr, path, &info, wo, err, errlen);
    if (ret < 0)
        return ret;
    uint8_t *buf = malloc((size_t)w * h * 3);
    OmctiPicture pic;
    for (int k = 0; k < n && ret >= 0; k++) {
        fill(&pic, buf, w, h, k);
        ret = video_writer_write(wr, &pic, err, errlen);
    }
    free(buf);
    if (ret >= 0)
        ret = video_writer_finish(wr, err, errlen);
    if (ret < 0)
        video_writer_abort(&wr);
    else
        video_writer_close(&wr);
    return ret;
}

/* Reads the file with the library's reader; counts pictures and, when
 * compare is set, checks each against the pattern. */
static int64_t read_all(TestState *ts, const char *path, VideoInfo *info, int compare,
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

static void test_roundtrip(TestState *ts, const char *name, int w, int h, int n, Rational fps,
                           int lossless, const char *codec, const char *want_codec)
{
    char path[512], err[512] = "";
    path_in(path, sizeof path, name);
    WriterOptions wo = { .crf = -1, .lossless = lossless, .codec = codec, .overwrite = 1,
                         .quiet = 1 };
    int ret = write_pattern(path, w, h, n, fps, &wo, err, sizeof err);
    CHECK(ts, ret == 0, "%s: write: %s", name, err);
    if (ret < 0)
        return;
    Probe pr = probe(path);
    CHECK(ts, pr.ok, "%s: libavformat cannot read it back", name);
    AVRational q = { (int)fps.num, (int)fps.den };
    CHECK(ts, !strcmp(pr.vcodec, want_codec), "%s: codec %s, expected %s", name, pr.vcodec,
          want_codec);
    CHECK(ts, !strcmp(pr.pix_fmt, "yuv420p"), "%s: pix_fmt %s", name, pr.pix_fmt);
    CHECK(ts, pr.vpackets == n, "%s: %lld packets, expected %d", name, (long long)pr.vpackets, n);
    CHECK(ts, pr.vframes == n, "%s: %lld pictures, expected %d", name, (long long)pr.vframes, n);
    /* Matroska keeps the rate as a duration in nanoseconds, and FFmpeg 5.1
     * reads it back as a fraction with terms <= 30000 (60000/1001 becomes
     * 19001/317, for files from the ffmpeg program too): within 1 ppm
     * there; exact everywhere else. Our reader snaps it back (below). */
    const int mkv = strstr(name, ".mkv") != NULL;
    const double rq = av_q2d(q);
    CHECK(ts, mkv ? fabs(av_q2d(pr.avg) - rq) < 1e-6 * rq : av_cmp_q(pr.avg, q) == 0,
          "%s: avg_frame_rate %d/%d, expected %d/%d", name, pr.avg.num, pr.avg.den, q.num,
          q.den);
    CHECK(ts, mkv ? fabs(av_q2d(pr.rfr) - rq) < 1e-6 * rq : av_cmp_q(pr.rfr, q) == 0,
          "%s: r_frame_rate %d/%d, expected %d/%d", name, pr.rfr.num, pr.rfr.den, q.num, q.den);
    double want = n * (double)fps.den / fps.num;
    /* Matroska stores milliseconds: 1 ms of slack. NUT stores no packet
     * durations, so its container duration ends at the last start. */
    if (!strstr(name, ".nut"))
        CHECK(ts, pr.duration > want - 0.0015 && pr.duration < want + 0.0015,
              "%s: duration %.6f s, expected %.6f s", name, pr.duration, want);
    CHECK(ts, pr.vend > want - 0.0015 && pr.vend < want + 0.0015,
          "%s: last picture ends at %.6f s, expected %.6f s", name, pr.vend, want);

    VideoInfo info;
    int exact = 0;
    int64_t got = read_all(ts, path, &info, lossless, &exact);
    CHECK(ts, got == n, "%s: reader gave %lld pictures, expected %d", name, (long long)got, n);
    CHECK(ts, info.fps.num * fps.den == fps.num * info.fps.den,
          "%s: reader fps %lld/%lld, expected %lld/%lld", name, (long long)info.fps.num,
          (long long)info.fps.den, (long long)fps.num, (long long)fps.den);
    CHECK(ts, info.width == w && info.height == h, "%s: size %dx%d", name, info.width,
          info.height);
    CHECK(ts, !info.converted && !strcmp(info.pix_fmt, "yuv420p"), "%s: pix_fmt %s conv %d",
          name, info.pix_fmt, info.converted);
    CHECK(ts, !info.vfr, "%s: flagged variable frame rate", name);
    if (lossless)
        CHECK(ts, exact, "%s: lossless round trip is not bit-exact", name);
}

static int has_encoder(const char *name)
{
    return avcodec_find_encoder_by_name(name) != NULL;
}

static void expect_read_error(TestState *ts, const char *path, const char *needle)
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

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

/* Copies the first `keep` bytes of src to dst. */
static long truncate_copy(const char *src, const char *dst, double share)
{
    FILE *f = fopen(src, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    long keep = (long)(size * share);
    char *buf = malloc((size_t)size);
    size_t got = fread(buf, 1, (size_t)size, f);
    fclose(f);
    write_file(dst, buf, got < (size_t)keep ? got : (size_t)keep);
    free(buf);
    return keep;
}

/* Reading a damaged file never crashes: it ends cleanly (with a warning) or
 * fails with one line that names the file. */
static void read_damaged(TestState *ts, const char *path, int64_t *pictures)
{
    char err[512] = "";
    VideoReader *r = NULL;
    *pictures = -1;
    int ret = video_reader_open(&r, path, err, sizeof err);
    if (ret < 0) {
        CHECK(ts, strstr(err, path) && !strchr(err, '\n'), "%s: bad message: %s", path, err);
        return;
    }
    OmctiPicture pic;
    int64_t n = 0;
    while ((ret = video_reader_read(r, &pic, err, sizeof err)) == 1)
        n++;
    if (ret < 0)
        CHECK(ts, strstr(err, path) && !strchr(err, '\n'), "%s: bad message: %s", path, err);
    video_reader_close(&r);
    *pictures = n;
}

/* A full disk, played by a file size limit (EFBIG) in a child process:
 * the write or the finish fails with a line naming the file, and nothing
 * is left under the requested name. */
static void test_disk_full(TestState *ts)
{
    char path[512];
    path_in(path, sizeof path, "full.mkv");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = { 64 * 1024, 64 * 1024 };
        setrlimit(RLIMIT_FSIZE, &rl);
        char err[512] = "";
        WriterOptions wo = { .crf = -1, .lossless = 1, .overwrite = 1, .quiet = 1 };
        int ret = write_pattern(path, 352, 288, 30, (Rational){ 25, 1 }, &wo, err, sizeof err);
        int ok = ret == OMCTI_ERR_IO && strstr(err, path) && strstr(err, "too large") &&
                 !strchr(err, '\n');
        if (!ok)
            fprintf(stderr, "disk full: ret %d, message '%s'\n", ret, err);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(ts, WIFEXITED(status) && WEXITSTATUS(status) == 0, "a full disk went unnoticed");
    CHECK(ts, access(path, F_OK) != 0, "a partial file was left at %s", path);
}

static void test_core(TestState *ts)
{
    const Rational ntsc = { 30000, 1001 }, ntsc2 = { 60000, 1001 };
    const int n = 30;
    if (has_encoder("libx264")) {
        test_roundtrip(ts, "default.mkv", 176, 144, n, ntsc, 0, NULL, "h264");
        test_roundtrip(ts, "default.mp4", 176, 144, n, ntsc, 0, NULL, "h264");
        test_roundtrip(ts, "doubled.mp4", 176, 144, 2 * n, ntsc2, 0, NULL, "h264");
        test_roundtrip(ts, "doubled.mkv", 176, 144, 2 * n, ntsc2, 0, NULL, "h264");
        test_roundtrip(ts, "lossless.mp4", 176, 144, n, ntsc, 1, NULL, "h264");
        test_roundtrip(ts, "default.mov", 176, 144, n, ntsc, 0, NULL, "h264");
    }
    test_roundtrip(ts, "lossless.mkv", 176, 144, n, ntsc, 1, NULL, "ffv1");
    test_roundtrip(ts, "lossless2.mkv", 176, 144, 2 * n, ntsc2, 1, NULL, "ffv1");
    test_roundtrip(ts, "odd.mkv", 175, 97, 7, (Rational){ 24, 1 }, 1, NULL, "ffv1");
    /* mpeg4 keeps an odd size (x264's default padding to even is checked
     * by realfiles_pixels_test.sh). */
    test_roundtrip(ts, "odd.mp4", 175, 97, 7, (Rational){ 24, 1 }, 0, "mpeg4", "mpeg4");
    test_roundtrip(ts, "lossless.avi", 176, 144, n, (Rational){ 25, 1 }, 1, NULL, "ffv1");
    test_roundtrip(ts, "lossless.nut", 176, 144, n, ntsc, 1, NULL, "ffv1");
    test_roundtrip(ts, "default.avi", 176, 144, n, (Rational){ 25, 1 }, 0, NULL, "mpeg4");
    test_roundtrip(ts, "mpeg4.mkv", 176, 144, n, ntsc, 0, "mpeg4", "mpeg4");

    /* Writer errors: one line naming the file, no file left behind. */
    char path[512], err[512] = "";
    WriterOptions wo = { .crf = -1, .overwrite = 1, .quiet = 1 };
    path_in(path, sizeof path, "unknown.xyz");
    CHECK(ts, write_pattern(path, 64, 64, 2, ntsc, &wo, err, sizeof err) < 0 &&
              strstr(err, path), "unknown container accepted: %s", err);
    CHECK(ts, access(path, F_OK) != 0, "a file was left at %s", path);
    path_in(path, sizeof path, "badcodec.mkv");
    wo.codec = "no-such-codec";
    CHECK(ts, write_pattern(path, 64, 64, 2, ntsc, &wo, err, sizeof err) < 0 &&
              strstr(err, "no-such-codec"), "unknown codec accepted: %s", err);
    wo.codec = "pcm_s16le";
    CHECK(ts, write_pattern(path, 64, 64, 2, ntsc, &wo, err, sizeof err) < 0 &&
              strstr(err, "not a video encoder"), "audio codec accepted: %s", err);
    wo.codec = "mpeg4";
    wo.lossless = 1;
    CHECK(ts, write_pattern(path, 64, 64, 2, ntsc, &wo, err, sizeof err) < 0 &&
              strstr(err, "lossless"), "lossy codec accepted as lossless: %s", err);
    CHECK(ts, access(path, F_OK) != 0, "a file was left at %s", path);
    test_disk_full(ts);

    /* Reader errors. */
    path_in(path, sizeof path, "missing.mp4");
    expect_read_error(ts, path, "No such file");
    {
        char err2[512] = "";
        VideoReader *r = NULL;
        CHECK(ts, ff_reader_open(&r, path, NULL, err2, sizeof err2) < 0 && strstr(err2, path) &&
                  strstr(err2, "No such file"), "ff_reader_open missing file: %s", err2);
    }
    static const char text[] = "This is not a video.\nJust some words in a text file.\n";
    path_in(path, sizeof path, "notes.txt");
    write_file(path, text, sizeof text - 1);
    expect_read_error(ts, path, "not a video");
    path_in(path, sizeof path, "notes.mp4");
    write_file(path, text, sizeof text - 1);
    expect_read_error(ts, path, "not a video");
    path_in(path, sizeof path, "empty.mkv");
    write_file(path, "", 0);
    expect_read_error(ts, path, "empty");

    /* Truncated: a Matroska file cut in the middle still gives its first
     * pictures; an MP4 whose index (moov, at the end) is cut off cannot be
     * read at all and says so. */
    char src[512];
    int64_t got;
    path_in(src, sizeof src, "lossless.mkv");
    path_in(path, sizeof path, "cut.mkv");
    truncate_copy(src, path, 0.5);
    read_damaged(ts, path, &got);
    CHECK(ts, got > 0 && got < n, "cut.mkv: %lld pictures from half a file", (long long)got);
    path_in(src, sizeof src, "lossless.nut");
    path_in(path, sizeof path, "cut.nut");
    truncate_copy(src, path, 0.6);
    read_damaged(ts, path, &got);
    path_in(src, sizeof src, "default.mp4");
    if (access(src, F_OK) == 0) {
        path_in(path, sizeof path, "cut.mp4");
        truncate_copy(src, path, 0.5);
        read_damaged(ts, path, &got);
        CHECK(ts, got == -1, "cut.mp4: opened without its index");
        path_in(path, sizeof path, "cut_head.mp4");
        truncate_copy(src, path, 0.02);
        read_damaged(ts, path, &got);
    }
    /* Garbage in the middle: a damaged stream either decodes with a
     * warning or fails clearly, never crashes. */
    path_in(src, sizeof src, "doubled.mkv");
    if (access(src, F_OK) == 0) {
        FILE *f = fopen(src, "rb");
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        unsigned char *buf = malloc((size_t)size);
        size_t rd = fread(buf, 1, (size_t)size, f);
        fclose(f);
        unsigned s = 12345;
        for (long i = size / 3; i < size * 2 / 3; i += 7) {
            s = s * 1103515245u + 12345u;
            buf[i] = (unsigned char)(s >> 16);
        }
        path_in(path, sizeof path, "damaged.mkv");
        write_file(path, buf, rd);
        free(buf);
        read_damaged(ts, path, &got);
    }
}

static int have_ffmpeg_cli(void)
{
    return system("ffmpeg -hide_banner -version >/dev/null 2>&1") == 0;
}

static int run(const char *fmt, const char *a)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, a, a, a);
    return system(cmd);
}

/* Reads in, writes out at twice the rate (every picture twice), with the
 * input's audio; returns the pictures written. */
static int64_t double_rate(TestState *ts, const char *in, const char *out, int quiet)
{
    char err[512] = "";
    VideoReader *r = NULL;
    int ret = video_reader_open(&r, in, err, sizeof err);
    CHECK(ts, ret == 0, "%s: %s", in, err);
    if (ret < 0)
        return -1;
    VideoInfo info = *video_reader_info(r);
    CHECK(ts, info.has_audio, "%s: has_audio not set", in);
    info.fps.num *= 2;
    WriterOptions wo = { .crf = -1, .overwrite = 1, .audio_from = in, .input_path = in,
                         .src_pix_fmt = info.pix_fmt, .quiet = quiet };
    VideoWriter *w = NULL;
    ret = video_writer_open(&w, out, &info, &wo, err, sizeof err);
    CHECK(ts, ret == 0, "%s: %s", out, err);
    int64_t n = 0;
    OmctiPicture pic;
    while (ret >= 0 && (ret = video_reader_read(r, &pic, err, sizeof err)) == 1) {
        for (int k = 0; k < 2 && ret >= 0; k++)
            ret = video_writer_write(w, &pic, err, sizeof err);
        n += 2;
    }
    CHECK(ts, ret == 0, "%s -> %s: %s", in, out, err);
    if (w) {
        if (ret == 0) {
            ret = video_writer_finish(w, err, sizeof err);
            CHECK(ts, ret == 0, "%s: finish: %s", out, err);
        }
        video_writer_close(&w);
    }
    video_reader_close(&r);
    return n;
}

static void test_cli_inputs(TestState *ts)
{
    char in[512], out[512], path[512];
    Probe pr;
    const char *q = "ffmpeg -nostdin -hide_banner -v error -y ";
    char cmd[1024];

    /* Audio copy, Matroska to Matroska (the brief's input). */
    path_in(in, sizeof in, "in.mkv");
    snprintf(cmd, sizeof cmd, "%s -f lavfi -i testsrc2=s=176x144:r=25:d=2 -f lavfi -i sine=d=2 "
             "-shortest '%s'", q, in);
    CHECK(ts, system(cmd) == 0, "ffmpeg failed: %s", cmd);
    path_in(out, sizeof out, "with_audio.mkv");
    int64_t n = double_rate(ts, in, out, 1);
    CHECK(ts, n == 100, "%s: %lld pictures written, expected 100", out, (long long)n);
    pr = probe(out);
    CHECK(ts, pr.ok && pr.nb_audio == 1 && pr.apackets > 10,
          "%s: audio lost (%d streams, %lld packets)", out, pr.nb_audio, (long long)pr.apackets);
    CHECK(ts, av_cmp_q(pr.avg, (AVRational){ 50, 1 }) == 0, "%s: rate %d/%d", out, pr.avg.num,
          pr.avg.den);
    CHECK(ts, pr.vframes == 100, "%s: %lld pictures", out, (long long)pr.vframes);
    CHECK(ts, pr.aend > 1.9 && pr.aend < 2.1, "%s: audio ends at %.3f s", out, pr.aend);

    /* AAC audio into MP4; and Vorbis/whatever into MP4 (kept or dropped
     * with a notice, never a failure). */
    path_in(in, sizeof in, "in_aac.mp4");
    snprintf(cmd, sizeof cmd, "%s -f lavfi -i testsrc2=s=176x144:r=30000/1001:d=2 -f lavfi "
             "-i sine=d=2 -c:v libx264 -pix_fmt yuv420p -c:a aac -shortest '%s'", q, in);
    if (system(cmd) == 0) {
        path_in(out, sizeof out, "aac_out.mp4");
        n = double_rate(ts, in, out, 1);
        pr = probe(out);
        CHECK(ts, pr.ok && pr.nb_audio == 1 && pr.apackets > 10, "%s: audio lost", out);
        CHECK(ts, av_cmp_q(pr.avg, (AVRational){ 60000, 1001 }) == 0, "%s: rate %d/%d", out,
              pr.avg.num, pr.avg.den);
        CHECK(ts, pr.vframes == n, "%s: %lld pictures of %lld", out, (long long)pr.vframes,
              (long long)n);
        CHECK(ts, pr.aend > 1.9 && pr.aend < 2.2, "%s: audio ends at %.3f s", out, pr.aend);
    }
    path_in(in, sizeof in, "in.mkv");
    path_in(out, sizeof out, "from_mkv.mp4");
    n = double_rate(ts, in, out, 0);
    pr = probe(out);
    CHECK(ts, pr.ok && pr.vframes == n, "%s: video lost", out);
    path_in(in, sizeof in, "in_pcm.mkv");
    snprintf(cmd, sizeof cmd, "%s -f lavfi -i testsrc2=s=176x144:r=25:d=1 -f lavfi -i sine=d=1 "
             "-c:v ffv1 -c:a pcm_s16le -shortest '%s'", q, in);
    if (system(cmd) == 0) {
        path_in(out, sizeof out, "from_pcm.mp4");
        n = double_rate(ts, in, out, 0);
        pr = probe(out);
        /* Newer FFmpeg (7.1) stores PCM in mp4 (ISO/IEC 23003-5): kept there. */
        const int keep = avformat_query_codec(av_guess_format("mp4", NULL, NULL),
                                              AV_CODEC_ID_PCM_S16LE, FF_COMPLIANCE_NORMAL) == 1;
        CHECK(ts, pr.ok && pr.vframes == n && pr.nb_audio == keep,
              "%s: pcm audio in mp4 should be %s (%d audio streams)", out,
              keep ? "kept" : "dropped", pr.nb_audio);
    }

    /* Audio only, and cover art alone, are not videos. */
    path_in(path, sizeof path, "audio.wav");
    snprintf(cmd, sizeof cmd, "%s -f lavfi -i sine=d=1 '%s'", q, path);
    CHECK(ts, system(cmd) == 0, "ffmpeg failed: %s", cmd);
    expect_read_error(ts, path, "audio only");
    path_in(path, sizeof path, "audio.mka");
    snprintf(cmd, sizeof cmd, "%s -f lavfi -i sine=d=1 '%s'", q, path);
    if (system(cmd) == 0)
        expect_read_error(ts, path, "audio only");

    /* An image is a one-picture video. */
    path_in(path, sizeof path, "still.png");
    snprintf(cmd, sizeof cmd, "%s -f lavfi -i testsrc2=s=64x48:d=1 -frames:v 1 '%s'", q, path);
    CHECK(ts, system(cmd) == 0, "ffmpeg failed: %s", cmd);
    {
        VideoInfo info;
        int exact;
        int64_t got = read_all(ts, path, &info, 0, &exact);
        CHECK(ts, got == 1 && info.width == 64 && info.height == 48 && info.converted,
              "still.png: %lld pictures %dx%d converted %d", (long long)got, info.width,
              info.height, info.converted);
    }

    /* 4:4:4 input: converted to 4:2:0 for the engine and written as the
     * 4:2:0 it is (issue 15); full-range yuvj420p (MJPEG) passes untouched. */
    path_in(in, sizeof in, "in444.mkv");
    snprintf(cmd, sizeof cmd, "%s -f lavfi -i testsrc2=s=96x64:r=25:d=1 -f lavfi -i sine=d=1 "
             "-c:v ffv1 -pix_fmt yuv444p -shortest '%s'", q, in);
    CHECK(ts, system(cmd) == 0, "ffmpeg failed: %s", cmd);
    {
        VideoInfo info;
        int exact;
        int64_t got = read_all(ts, in, &info, 0, &exact);
        CHECK(ts, got == 25 && info.converted && !strcmp(info.pix_fmt, "yuv444p"),
              "in444.mkv: %lld pictures, %s, converted %d", (long long)got, info.pix_fmt,
              info.converted);
        path_in(out, sizeof out, "out444.mkv");
        double_rate(ts, in, out, 1);
        pr = probe(out);
        CHECK(ts, !strcmp(pr.pix_fmt, "yuv420p"), "out444.mkv: pix_fmt %s", pr.pix_fmt);
    }
    path_in(in, sizeof in, "mjpeg.avi");
    snprintf(cmd, sizeof cmd, "%s -f lavfi -i testsrc2=s=96x64:r=25:d=1 -f lavfi -i sine=d=1 "
             "-c:v mjpeg -pix_fmt yuvj420p -shortest '%s'", q, in);
    CHECK(ts, system(cmd) == 0, "ffmpeg failed: %s", cmd);
    {
        VideoInfo info;
        int exact;
        int64_t got = read_all(ts, in, &info, 0, &exact);
        CHECK(ts, got == 25 && !info.converted && !strcmp(info.pix_fmt, "yuvj420p"),
              "mjpeg.avi: %lld pictures, %s, converted %d", (long long)got, info.pix_fmt,
              info.converted);
        path_in(out, sizeof out, "mjpeg_out.mkv");
        double_rate(ts, in, out, 1);
        pr = probe(out);
        CHECK(ts, !strcmp(pr.pix_fmt, "yuvj420p"), "mjpeg_out.mkv: pix_fmt %s", pr.pix_fmt);
    }
    (void)run;
}

static int is_video_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".mkv") || !strcmp(dot, ".mp4") || !strcmp(dot, ".avi") ||
                   !strcmp(dot, ".mov") || !strcmp(dot, ".webm") || !strcmp(dot, ".y4m"));
}

static int test_samples(TestState *ts)
{
    /* tests/meson.build sets OMCTI_SAMPLES (the shared clips, or the
     * project's samples/); the others are for a run by hand from the build
     * folder. */
    const char *cands[] = { getenv("OMCTI_SAMPLES"), "../shared/samples",
                            "../../shared/samples" };
    const char *sdir = NULL;
    for (size_t i = 0; i < sizeof cands / sizeof cands[0] && !sdir; i++) {
        struct stat sb;
        if (cands[i] && stat(cands[i], &sb) == 0 && S_ISDIR(sb.st_mode))
            sdir = cands[i];
    }
    if (!sdir)
        return SKIP;
    DIR *d = opendir(sdir);
    int tested = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!is_video_name(e->d_name))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", sdir, e->d_name);
        VideoInfo info;
        int exact;
        int64_t n = read_all(ts, path, &info, 0, &exact);
        printf("%s: %dx%d %lld/%lld fps %s, %lld pictures (guess %lld)%s\n", e->d_name,
               info.width, info.height, (long long)info.fps.num, (long long)info.fps.den,
               info.pix_fmt, (long long)n, (long long)info.nb_frames,
               info.has_audio ? ", audio" : "");
        CHECK(ts, n > 1, "%s: %lld pictures", path, (long long)n);
        CHECK(ts, info.fps.num > 0 && info.fps.den > 0, "%s: no frame rate", path);
        CHECK(ts, info.nb_frames < 0 || (info.nb_frames - n <= 2 && n - info.nb_frames <= 2),
              "%s: nb_frames guess %lld, read %lld", path, (long long)info.nb_frames,
              (long long)n);
        tested++;
    }
    if (d)
        closedir(d);
    return tested ? 0 : SKIP;
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
