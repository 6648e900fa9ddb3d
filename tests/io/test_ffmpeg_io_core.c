/* test_ffmpeg_io core (test_ffmpeg_io.c): write/read round trips, exact
 * timing, lossless bit-exactness, reader and writer errors, damaged files
 * and a full disk. */
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

void test_core(TestState *ts)
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
