/* test_ffmpeg_io cli and samples (test_ffmpeg_io.c): inputs made with the
 * ffmpeg program (audio copy, audio-only, images, other pixel formats), and
 * every clip of $OMCTI_SAMPLES. */
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

void test_cli_inputs(TestState *ts)
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

int test_samples(TestState *ts)
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
