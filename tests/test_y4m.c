/* y4m reader and writer, the read-ahead thread's limit, and the output rules
 * of io.c (temporary file, rename on success, no overwrite without -y,
 * never over the input). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/io/async.h"
#include "src/io/io.h"
#include "tests/check.h"

static char dir[256];

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static int count_files(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
    closedir(d);
    return n;
}

static void fill(OmctiPicture *p, uint8_t *buf, int w, int h, int seed)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    *p = (OmctiPicture){ { buf, buf + w * h, buf + w * h + cw * ch }, { w, cw, cw }, w, h };
    for (int i = 0; i < w * h + 2 * cw * ch; i++)
        buf[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 5));
}

static void test_roundtrip(TestState *ts, int w, int h)
{
    char path[512];
    path_in(path, sizeof path, "rt.y4m");
    VideoInfo info = { .width = w, .height = h, .fps = { 30000, 1001 }, .sar = { 1, 1 }, .interlace = 'p' };
    WriterOptions wo = { .crf = -1, .overwrite = 1 };
    char err[512] = "";
    VideoWriter *wr;
    CHECK(ts, video_writer_open(&wr, path, &info, &wo, err, sizeof err) == 0, "%s", err);
    if (!wr) return;
    uint8_t *buf = malloc(w * h * 3);
    OmctiPicture pic;
    for (int k = 0; k < 3; k++) {
        fill(&pic, buf, w, h, k);
        CHECK(ts, video_writer_write(wr, &pic, err, sizeof err) == 0, "%s", err);
    }
    CHECK(ts, access(path, F_OK) != 0, "nothing under the final name before finish");
    CHECK(ts, video_writer_finish(wr, err, sizeof err) == 0, "%s", err);
    video_writer_close(&wr);
    CHECK(ts, count_files() == 1, "only the output remains (%d files)", count_files());

    VideoReader *rd;
    CHECK(ts, video_reader_open(&rd, path, err, sizeof err) == 0, "%s", err);
    if (!rd) { free(buf); return; }
    const VideoInfo *ri = video_reader_info(rd);
    CHECK(ts, ri->width == w && ri->height == h, "size %dx%d", ri->width, ri->height);
    CHECK(ts, ri->fps.num == 30000 && ri->fps.den == 1001, "fps");
    for (int k = 0; k < 3; k++) {
        OmctiPicture got;
        CHECK(ts, video_reader_read(rd, &got, err, sizeof err) == 1, "frame %d: %s", k, err);
        fill(&pic, buf, w, h, k);
        int same = 1;
        for (int p = 0; p < 3; p++) {
            int pw = p ? (w + 1) / 2 : w, ph = p ? (h + 1) / 2 : h;
            for (int y = 0; y < ph; y++)
                same &= !memcmp(got.data[p] + y * got.stride[p], pic.data[p] + y * pic.stride[p], pw);
        }
        CHECK(ts, same, "frame %d round trip %dx%d", k, w, h);
    }
    OmctiPicture got;
    CHECK(ts, video_reader_read(rd, &got, err, sizeof err) == 0, "end of stream");
    video_reader_close(&rd);
    unlink(path);
    free(buf);
}

static void write_file(const char *path, const char *head, size_t extra)
{
    FILE *f = fopen(path, "wb");
    fputs(head, f);
    for (size_t i = 0; i < extra; i++) fputc(i & 255, f);
    fclose(f);
}

static void expect_read_error(TestState *ts, const char *name, const char *content, size_t extra,
                              const char *needle)
{
    char path[512], err[512] = "";
    path_in(path, sizeof path, name);
    write_file(path, content, extra);
    VideoReader *rd = NULL;
    int ret = video_reader_open(&rd, path, err, sizeof err);
    if (ret == 0) {
        OmctiPicture pic;
        while ((ret = video_reader_read(rd, &pic, err, sizeof err)) > 0) {}
        video_reader_close(&rd);
    }
    CHECK(ts, ret < 0, "%s must fail", name);
    CHECK(ts, strstr(err, needle) != NULL, "%s: '%s' lacks '%s'", name, err, needle);
    CHECK(ts, strstr(err, name) != NULL, "%s: message names the file: '%s'", name, err);
    unlink(path);
}

static void test_bad_inputs(TestState *ts)
{
    expect_read_error(ts, "trunc.y4m", "YUV4MPEG2 W16 H16 F25:1 C420jpeg\nFRAME\n", 100, "truncated");
    expect_read_error(ts, "nomark.y4m", "YUV4MPEG2 W16 H16 F25:1\nFRAMX\n", 384, "FRAME");
    expect_read_error(ts, "nosize.y4m", "YUV4MPEG2 F25:1\n", 0, "size");
    expect_read_error(ts, "huge.y4m", "YUV4MPEG2 W100000 H16 F25:1\n", 0, "larger than omcti handles");
    expect_read_error(ts, "norate.y4m", "YUV4MPEG2 W16 H16 F0:1\n", 0, "frame rate");
    expect_read_error(ts, "deep.y4m", "YUV4MPEG2 W16 H16 F25:1 C420p10\n", 0, "not supported");
    expect_read_error(ts, "garbage.y4m", "hello world\n", 0, "not a y4m");
    expect_read_error(ts, "empty.y4m", "", 0, "empty");
    expect_read_error(ts, "badfield.y4m", "YUV4MPEG2 W16x H16 F25:1\n", 0, "malformed");

    char err[512] = "";
    VideoReader *rd;
    CHECK(ts, video_reader_open(&rd, "/nonexistent/clip.y4m", err, sizeof err) < 0 &&
              strstr(err, "No such file"), "missing file: %s", err);
    CHECK(ts, video_reader_open(&rd, dir, err, sizeof err) < 0 && strstr(err, "directory"),
          "directory: %s", err);
}

static void test_conversions(TestState *ts)
{
    /* 4:2:2 and mono are converted to 4:2:0. */
    char path[512], err[512] = "";
    path_in(path, sizeof path, "c422.y4m");
    FILE *f = fopen(path, "wb");
    fputs("YUV4MPEG2 W4 H2 F25:1 C422\nFRAME\n", f);
    const uint8_t y[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, u[4] = { 10, 20, 30, 41 }, v[4] = { 100, 100, 0, 255 };
    fwrite(y, 1, 8, f); fwrite(u, 1, 4, f); fwrite(v, 1, 4, f);
    fclose(f);
    VideoReader *rd;
    OmctiPicture pic;
    CHECK(ts, video_reader_open(&rd, path, err, sizeof err) == 0, "%s", err);
    if (rd) {
        CHECK(ts, video_reader_info(rd)->converted, "marked converted");
        CHECK(ts, video_reader_read(rd, &pic, err, sizeof err) == 1, "%s", err);
        CHECK(ts, pic.data[0][5] == 6, "luma kept");
        CHECK(ts, pic.data[1][0] == 20 && pic.data[1][1] == 31, "chroma averaged vertically: %d %d", pic.data[1][0], pic.data[1][1]);
        CHECK(ts, pic.data[2][0] == 50 && pic.data[2][1] == 178, "v averaged: %d %d", pic.data[2][0], pic.data[2][1]);
        video_reader_close(&rd);
    }
    unlink(path);
}

static void test_output_rules(TestState *ts)
{
    char in[512], out[512], err[512] = "";
    path_in(in, sizeof in, "in.y4m");
    path_in(out, sizeof out, "out.y4m");
    write_file(in, "YUV4MPEG2 W2 H2 F25:1\n", 0);
    write_file(out, "precious", 0);
    VideoInfo info = { .width = 2, .height = 2, .fps = { 25, 1 } };
    WriterOptions wo = { .crf = -1, .input_path = in };
    VideoWriter *wr = NULL;
    CHECK(ts, video_writer_open(&wr, out, &info, &wo, err, sizeof err) < 0 && strstr(err, "-y"),
          "existing output without -y: %s", err);
    CHECK(ts, video_writer_open(&wr, in, &info, &wo, err, sizeof err) < 0 && strstr(err, "input"),
          "output == input: %s", err);
    CHECK(ts, video_writer_open(&wr, "/nonexistent-dir/x.y4m", &info, &wo, err, sizeof err) < 0,
          "unwritable directory");
    /* An aborted write leaves the old file as it was and no temporary. */
    wo.overwrite = 1;
    CHECK(ts, video_writer_open(&wr, out, &info, &wo, err, sizeof err) == 0, "%s", err);
    video_writer_abort(&wr);
    FILE *f = fopen(out, "rb");
    char buf[16] = "";
    CHECK(ts, f && fread(buf, 1, 8, f) == 8 && !memcmp(buf, "precious", 8), "old output untouched");
    if (f) fclose(f);
    CHECK(ts, count_files() == 2, "no temporary left (%d files)", count_files());
    unlink(in);
    unlink(out);
}

static int files_equal(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
        if (ca == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* The workers' shared output: frames written by two views, out of order
 * and one of them from padded rows, make exactly the sequential file. */
static void test_slots(TestState *ts, int w, int h)
{
    char seq[512], par[512], err[512] = "";
    path_in(seq, sizeof seq, "seq.y4m");
    path_in(par, sizeof par, "par.y4m");
    VideoInfo info = { .width = w, .height = h, .fps = { 60, 1 }, .sar = { 1, 1 }, .interlace = 'p' };
    WriterOptions wo = { .crf = -1, .overwrite = 1 };
    const int n = 5, pad = 3;
    uint8_t *buf = malloc((size_t)(w + pad) * h * 3);
    OmctiPicture pic;
    VideoWriter *wr = NULL;
    CHECK(ts, video_writer_open(&wr, seq, &info, &wo, err, sizeof err) == 0, "%s", err);
    for (int k = 0; k < n && wr; k++) {
        fill(&pic, buf, w, h, k);
        CHECK(ts, video_writer_write(wr, &pic, err, sizeof err) == 0, "%s", err);
    }
    CHECK(ts, wr && video_writer_finish(wr, err, sizeof err) == 0, "%s", err);
    video_writer_close(&wr);

    Y4mSlots *sl = NULL;
    VideoWriter *v[2] = { NULL, NULL };
    CHECK(ts, y4m_slots_open(&sl, par, &info, n, &wo, err, sizeof err) == 0, "%s", err);
    if (!sl) { free(buf); return; }
    CHECK(ts, y4m_slots_writer(sl, 0, 2, &v[0], err, sizeof err) == 0, "%s", err);
    CHECK(ts, y4m_slots_writer(sl, 2, 3, &v[1], err, sizeof err) == 0, "%s", err);
    CHECK(ts, y4m_slots_writer(sl, 4, 2, &wr, err, sizeof err) < 0, "a view past the end");
    const int order[5] = { 2, 0, 3, 1, 4 };   /* frame k: view k < 2 ? 0 : 1 */
    for (int i = 0; i < n && v[0] && v[1]; i++) {
        const int k = order[i];
        fill(&pic, buf, w, h, k);
        OmctiPicture padded = pic;
        if (k == 3) {   /* the same picture with rows of w + pad bytes */
            uint8_t *pb = malloc((size_t)(w + pad) * h * 3), *d = pb;
            for (int p = 0; p < 3; p++) {
                const int pw = p ? (w + 1) / 2 : w, ph = p ? (h + 1) / 2 : h;
                padded.data[p] = d;
                padded.stride[p] = pw + pad;
                for (int y = 0; y < ph; y++, d += pw + pad)
                    memcpy(d, pic.data[p] + y * pic.stride[p], (size_t)pw);
            }
            CHECK(ts, video_writer_write(v[1], &padded, err, sizeof err) == 0, "%s", err);
            free(pb);
            continue;
        }
        CHECK(ts, video_writer_write(v[k < 2 ? 0 : 1], &pic, err, sizeof err) == 0, "%s", err);
    }
    CHECK(ts, access(par, F_OK) != 0, "nothing under the final name before finish");
    for (int i = 0; i < 2; i++) {
        CHECK(ts, v[i] && video_writer_finish(v[i], err, sizeof err) == 0, "%s", err);
        video_writer_close(&v[i]);
    }
    CHECK(ts, y4m_slots_finish(&sl, err, sizeof err) == 0, "%s", err);
    CHECK(ts, files_equal(seq, par), "slots %dx%d: the file equals the sequential one", w, h);

    /* A view that falls short fails its finish; abort leaves no file. */
    CHECK(ts, y4m_slots_open(&sl, par, &info, n, &wo, err, sizeof err) == 0, "%s", err);
    CHECK(ts, y4m_slots_writer(sl, 0, n, &v[0], err, sizeof err) == 0, "%s", err);
    fill(&pic, buf, w, h, 0);
    CHECK(ts, v[0] && video_writer_write(v[0], &pic, err, sizeof err) == 0, "%s", err);
    CHECK(ts, v[0] && video_writer_finish(v[0], err, sizeof err) < 0 && strstr(err, "short"),
          "a short view: '%s'", err);
    video_writer_close(&v[0]);
    unlink(par);
    y4m_slots_abort(&sl);
    CHECK(ts, count_files() == 1, "abort leaves only the sequential file (%d files)",
          count_files());
    unlink(seq);
    free(buf);
}

/* The read-ahead thread reads no further than its limit, however long the
 * consumer takes: a part of a file counts the damage of its own pictures. */
static void test_async_limit(TestState *ts)
{
    const int w = 32, h = 16, n = 6;
    char path[512], err[512] = "";
    path_in(path, sizeof path, "ahead.y4m");
    VideoInfo info = { .width = w, .height = h, .fps = { 25, 1 }, .sar = { 1, 1 }, .interlace = 'p' };
    WriterOptions wo = { .crf = -1, .overwrite = 1 };
    VideoWriter *wr;
    uint8_t *buf = malloc(w * h * 3);
    OmctiPicture pic;
    CHECK(ts, video_writer_open(&wr, path, &info, &wo, err, sizeof err) == 0, "%s", err);
    if (!wr) { free(buf); return; }
    for (int k = 0; k < n; k++) {
        fill(&pic, buf, w, h, k);
        CHECK(ts, video_writer_write(wr, &pic, err, sizeof err) == 0, "%s", err);
    }
    CHECK(ts, video_writer_finish(wr, err, sizeof err) == 0, "%s", err);
    video_writer_close(&wr);

    VideoReader *rd;
    AsyncReader *ar = NULL;
    CHECK(ts, video_reader_open(&rd, path, err, sizeof err) == 0, "%s", err);
    if (!rd) { free(buf); return; }
    CHECK(ts, async_reader_start(&ar, rd, 3, 2, NULL, err, sizeof err) == 0, "%s", err);
    int got = 0;
    for (OmctiPicture p; ar && async_reader_next(ar, &p, err, sizeof err) == 1;) {
        usleep(20000);   /* time enough for the thread to read on */
        got++;
    }
    CHECK(ts, got == 2, "limit 2: %d pictures", got);
    async_reader_stop(&ar);
    OmctiPicture next;
    CHECK(ts, video_reader_read(rd, &next, err, sizeof err) == 1, "%s", err);
    fill(&pic, buf, w, h, 2);
    CHECK(ts, !memcmp(next.data[0], pic.data[0], (size_t)w), "the reader stands at picture 2");
    video_reader_close(&rd);
    unlink(path);
    free(buf);
}

int main(void)
{
    TestState ts = { 0, 0 };
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/omcti-y4m-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) return 1;
    test_roundtrip(&ts, 64, 48);
    test_roundtrip(&ts, 17, 9);
    test_roundtrip(&ts, 1, 1);
    test_bad_inputs(&ts);
    test_conversions(&ts);
    test_output_rules(&ts);
    test_slots(&ts, 64, 48);
    test_slots(&ts, 17, 9);
    test_async_limit(&ts);
    rmdir(dir);
    return test_finish(&ts, "y4m");
}
