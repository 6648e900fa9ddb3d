/* YUV4MPEG2 (y4m) reader and writer: the format of pipes and of the
 * FFmpeg-less build. 8-bit 4:2:0 is read as is; 8-bit 4:2:2, 4:4:4 and mono
 * are converted to 4:2:0 (chroma averaged, mono gets neutral chroma); deeper
 * samples are refused with a clear message. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "src/common.h"
#include "src/frame.h"
#include "src/io/io_internal.h"

#define Y4M_MAX_LINE 4096

typedef enum Y4mChroma { Y4M_420, Y4M_422, Y4M_444, Y4M_MONO } Y4mChroma;

typedef struct Y4mReader {
    FILE *f;
    int own_file;
    Y4mChroma chroma;
    size_t frame_bytes;        /* raw bytes of one frame in the file       */
    uint8_t *raw;              /* one raw frame (converted formats only)   */
    uint8_t *planes;           /* the 4:2:0 picture handed out             */
    OmctiPicture pic;
    int64_t frames_read;
    char line[Y4M_MAX_LINE];
} Y4mReader;

static int read_line(FILE *f, char *buf, size_t size)
{
    size_t n = 0;
    int ch;
    while ((ch = getc(f)) != EOF) {
        if (ch == '\n') {
            buf[n] = 0;
            return (int)n;
        }
        if (n + 1 >= size) return -2;
        buf[n++] = (char)ch;
    }
    buf[n] = 0;
    return n ? -3 : -1;   /* -1: clean end of file, -3: cut off mid-line */
}

static int parse_header(Y4mReader *s, VideoInfo *info, const char *path, char *err, size_t errlen)
{
    int n = read_line(s->f, s->line, sizeof s->line);
    if (n == -1 && ferror(s->f))   /* stdin a directory: EISDIR */
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot read '%s': %s", path,
                         strerror(errno ? errno : EIO));
    if (n == -1)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s' is empty", path);
    /* A header is a few dozen bytes; one that fills the buffer is damaged
     * (or hostile), not another format: say which. */
    if (n == -2 && !strncmp(s->line, "YUV4MPEG2 ", 10))
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': the y4m header line is longer than %d bytes (damaged?)", path,
                         Y4M_MAX_LINE - 1);
    if (n < 0 || strncmp(s->line, "YUV4MPEG2", 9) || (s->line[9] != ' ' && s->line[9] != 0))
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s' is not a y4m stream (no YUV4MPEG2 header)", path);
    long long w = 0, h = 0, fn = 0, fd = 0, an = 0, ad = 0;
    char cs[32] = "420jpeg";
    info->interlace = 'p';
    /* strtok_r: --workers and --devices parse headers on several threads. */
    char *save = NULL;
    for (char *tok = strtok_r(s->line + 9, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *end = NULL;
        switch (tok[0]) {
        case 'W': w = strtoll(tok + 1, &end, 10); break;
        case 'H': h = strtoll(tok + 1, &end, 10); break;
        case 'F':
            if (sscanf(tok + 1, "%lld:%lld", &fn, &fd) != 2) fn = fd = 0;
            break;
        case 'A':
            if (sscanf(tok + 1, "%lld:%lld", &an, &ad) != 2) an = ad = 0;
            break;
        case 'I':
            /* the spec's p, t, b, m (mixed, per frame) or ? (unknown), by
             * the first letter as FFmpeg's y4m demuxer reads it; any other
             * letter, or none, is a damaged header, which FFmpeg refuses too
             * (it also refuses m, which omcti takes with the interlace note) */
            if (!tok[1] || !strchr("ptbm?", tok[1]))
                return set_error(err, errlen, OMCTI_ERR_FORMAT,
                                 "'%s': malformed y4m header field '%s' (interlacing is Ip, It, "
                                 "Ib, Im or I?)", path, tok);
            info->interlace = tok[1];
            break;
        case 'C': snprintf(cs, sizeof cs, "%s", tok + 1); break;
        case 'X':
            if (!strcmp(tok, "XCOLORRANGE=FULL"))
                info->color_range = 2;
            else if (!strcmp(tok, "XCOLORRANGE=LIMITED"))
                info->color_range = 1;
            break;        /* other X comments are allowed */
        default: break;   /* unknown tags are allowed */
        }
        if (end && *end)
            return set_error(err, errlen, OMCTI_ERR_FORMAT,
                             "'%s': malformed y4m header field '%s'", path, tok);
    }
    if (w < 1 || h < 1)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': y4m frame size %lldx%lld is missing or out of range", path, w, h);
    const int size_ret = io_check_size(path, w, h, err, errlen);
    if (size_ret < 0)
        return size_ret;
    if (fn <= 0 || fd <= 0 || fn > INT_MAX || fd > INT_MAX)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': y4m frame rate is missing or invalid", path);
    if (!strncmp(cs, "420", 3) && (!cs[3] || !strcmp(cs + 3, "jpeg") || !strcmp(cs + 3, "mpeg2") ||
                                   !strcmp(cs + 3, "paldv")))
        s->chroma = Y4M_420;
    else if (!strcmp(cs, "422"))
        s->chroma = Y4M_422;
    else if (!strcmp(cs, "444"))
        s->chroma = Y4M_444;
    else if (!strcmp(cs, "mono"))
        s->chroma = Y4M_MONO;
    else
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': y4m colour space C%s is not supported "
                         "(8-bit 420, 422, 444 or mono; convert deeper formats first)", path, cs);
    info->width = (int)w;
    info->height = (int)h;
    info->fps = rational_make(fn, fd);
    info->sar = (an > 0 && ad > 0) ? rational_make(an, ad) : (Rational){ 0, 1 };
    info->nb_frames = -1;
    snprintf(info->pix_fmt, sizeof info->pix_fmt, "%s",
             s->chroma == Y4M_420 ? "yuv420p" : s->chroma == Y4M_422 ? "yuv422p" :
             s->chroma == Y4M_444 ? "yuv444p" : "gray");
    info->converted = s->chroma != Y4M_420;
    /* Chroma siting of 4:2:0 (AVChromaLocation: left 1, center 2,
     * top-left 3), so that y4m -> y4m keeps the tag. */
    if (s->chroma == Y4M_420)
        info->chroma_location = !strcmp(cs + 3, "mpeg2") ? 1 : !strcmp(cs + 3, "paldv") ? 3 : 2;
    /* full range travels as the working format's yuvj420p (encoded
     * outputs tag it so) */
    if (info->color_range == 2 && s->chroma == Y4M_420)
        snprintf(info->pix_fmt, sizeof info->pix_fmt, "yuvj420p");
    return 0;
}

static void convert_to_420(Y4mReader *s, int w, int h)
{
    const int cw = chroma_size(w), ch = chroma_size(h);
    const uint8_t *y = s->raw;
    memcpy(s->pic.data[0], y, (size_t)w * h);
    for (int p = 1; p < 3; p++) {
        uint8_t *dst = s->pic.data[p];
        if (s->chroma == Y4M_MONO) {
            memset(dst, 128, (size_t)cw * ch);
            continue;
        }
        const int sw = s->chroma == Y4M_444 ? w : cw;   /* source chroma width */
        const uint8_t *src = s->raw + (size_t)w * h + (size_t)(p - 1) * sw * h;
        for (int j = 0; j < ch; j++) {
            const uint8_t *r0 = src + (size_t)(2 * j) * sw;
            const uint8_t *r1 = src + (size_t)min_i(2 * j + 1, h - 1) * sw;
            for (int i = 0; i < cw; i++) {
                int sum;
                if (s->chroma == Y4M_422) {
                    sum = 2 * (r0[i] + r1[i]);
                } else {
                    const int i0 = 2 * i, i1 = min_i(2 * i + 1, w - 1);
                    sum = r0[i0] + r0[i1] + r1[i0] + r1[i1];
                }
                dst[(size_t)j * cw + i] = (uint8_t)((sum + 2) >> 2);
            }
        }
    }
}

static int y4m_read(VideoReader *r, OmctiPicture *pic, char *err, size_t errlen)
{
    Y4mReader *s = r->priv;
    int n = read_line(s->f, s->line, sizeof s->line);
    if (n == -1) {
        if (ferror(s->f))
            return set_error(err, errlen, OMCTI_ERR_IO, "'%s': read error: %s", r->path,
                             strerror(errno));
        return 0;
    }
    if (n < 0 || strncmp(s->line, "FRAME", 5) || (s->line[5] != ' ' && s->line[5] != 0))
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': corrupt y4m stream: frame %lld has no FRAME marker",
                         r->path, (long long)s->frames_read);
    uint8_t *dst = s->raw ? s->raw : s->planes;
    size_t got = fread(dst, 1, s->frame_bytes, s->f);
    if (got != s->frame_bytes)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': frame %lld is truncated (%zu of %zu bytes)",
                         r->path, (long long)s->frames_read, got, s->frame_bytes);
    if (s->raw)
        convert_to_420(s, r->info.width, r->info.height);
    s->frames_read++;
    *pic = s->pic;
    return 1;
}

static void y4m_reader_close(VideoReader *r)
{
    Y4mReader *s = r->priv;
    if (!s) return;
    if (s->own_file && s->f) fclose(s->f);
    free(s->raw);
    free(s->planes);
    free(s);
    r->priv = NULL;
}

/* The byte offset of every frame (for segments). Frame headers are
 * "FRAME\n" in practice; when the file size says so, the offsets follow by
 * arithmetic, else every header is read (pread, no stdio buffer churn). */
static int y4m_index(VideoReader *r, FrameIndex *ix, char *err, size_t errlen)
{
    Y4mReader *s = r->priv;
    const off_t first = ftello(s->f);
    struct stat st;
    if (!s->own_file || first < 0 || fstat(fileno(s->f), &st) < 0 || !S_ISREG(st.st_mode))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': cannot index a y4m stream (segments need a file)", r->path);
    const int fd = fileno(s->f);
    const int64_t size = st.st_size, step = 6 + (int64_t)s->frame_bytes;
    int64_t cap = (size - first) / step + 1;
    ix->kind = FRAME_INDEX_OFFSET;
    ix->key = malloc(sizeof *ix->key * (size_t)cap);
    if (!ix->key)
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    char head[8];
    if ((size - first) % step == 0 && pread(fd, head, 6, first) == 6 && !memcmp(head, "FRAME\n", 6)) {
        ix->count = (size - first) / step;
        for (int64_t k = 0; k < ix->count; k++)
            ix->key[k] = first + k * step;
        return 0;
    }
    int64_t off = first, n = 0;
    char line[Y4M_MAX_LINE];
    while (off < size) {
        ssize_t got = pread(fd, line, sizeof line - 1, off);
        if (got <= 0) break;
        line[got] = 0;
        char *nl = memchr(line, '\n', (size_t)got);
        if (!nl || strncmp(line, "FRAME", 5) || (line[5] != ' ' && line[5] != '\n'))
            return set_error(err, errlen, OMCTI_ERR_FORMAT,
                             "'%s': corrupt y4m stream: frame %lld has no FRAME marker",
                             r->path, (long long)n);
        const int64_t next = off + (nl - line) + 1 + (int64_t)s->frame_bytes;
        if (next > size)   /* the reader's error, so every path refuses the file alike */
            return set_error(err, errlen, OMCTI_ERR_FORMAT,
                             "'%s': frame %lld is truncated (%lld of %zu bytes)", r->path,
                             (long long)n, (long long)(size - (off + (nl - line) + 1)),
                             s->frame_bytes);
        if (n == cap) {
            int64_t *k2 = realloc(ix->key, sizeof *k2 * (size_t)(cap *= 2));
            if (!k2) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
            ix->key = k2;
        }
        ix->key[n++] = off;
        off = next;
    }
    ix->count = n;
    return 0;
}

static int y4m_seek(VideoReader *r, const FrameIndex *ix, int64_t frame, char *err,
                    size_t errlen)
{
    Y4mReader *s = r->priv;
    if (ix->kind != FRAME_INDEX_OFFSET || !ix->key)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': the frame index is not a y4m "
                         "index", r->path);
    if (fseeko(s->f, ix->key[frame], SEEK_SET) < 0)
        return set_error(err, errlen, OMCTI_ERR_IO, "'%s': cannot seek: %s", r->path,
                         strerror(errno));
    s->frames_read = frame;
    return 0;
}

static const VideoReaderOps y4m_reader_ops = {
    .read = y4m_read,
    .close = y4m_reader_close,
    .index = y4m_index,
    .seek = y4m_seek,
};

int y4m_reader_open_stream(VideoReader **out, FILE *f, int own_file, const char *name,
                           char *err, size_t errlen)
{
    VideoReader *r = video_reader_new(&y4m_reader_ops, name);
    Y4mReader *s = calloc(1, sizeof *s);
    if (!r || !s) {
        free(s);
        if (own_file) fclose(f);
        video_reader_close(&r);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    }
    r->priv = s;
    s->f = f;
    s->own_file = own_file;
    setvbuf(s->f, NULL, _IOFBF, 1 << 20);
    int ret = parse_header(s, &r->info, name, err, errlen);
    if (ret < 0)
        goto fail;

    const int w = r->info.width, h = r->info.height;
    const size_t luma = (size_t)w * h, c420 = (size_t)chroma_size(w) * chroma_size(h);
    switch (s->chroma) {
    case Y4M_420:  s->frame_bytes = luma + 2 * c420; break;
    case Y4M_422:  s->frame_bytes = luma + 2 * (size_t)chroma_size(w) * h; break;
    case Y4M_444:  s->frame_bytes = 3 * luma; break;
    case Y4M_MONO: s->frame_bytes = luma; break;
    }
    s->planes = malloc(luma + 2 * c420);
    if (s->chroma != Y4M_420)
        s->raw = malloc(s->frame_bytes);
    if (!s->planes || (s->chroma != Y4M_420 && !s->raw)) {
        ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        goto fail;
    }
    s->pic = (OmctiPicture){
        .data = { s->planes, s->planes + luma, s->planes + luma + c420 },
        .stride = { w, chroma_size(w), chroma_size(w) },
        .width = w, .height = h,
    };
    *out = r;
    return 0;
fail:
    video_reader_close(&r);
    return ret;
}

int y4m_reader_open(VideoReader **out, const char *path, char *err, size_t errlen)
{
    if (!strcmp(path, "-"))
        return y4m_reader_open_stream(out, stdin, 0, "stdin", err, errlen);
    FILE *f = fopen(path, "rb");
    if (!f)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot open '%s': %s", path,
                         strerror(errno));
    return y4m_reader_open_stream(out, f, 1, path, err, errlen);
}

/* ---- writer ---- */

/* Every picture written is a whole frame (in-between pictures have no
 * fields): Ip, as the encoded outputs say. The chroma tag names the source's
 * 4:2:0 siting (MPEG-2 left, JPEG centre, PAL-DV top-left; JPEG when
 * unknown), XCOLORRANGE its range when known (FFmpeg's yuv4mpegpipe rules). */
int y4m_format_header(char *buf, size_t size, const VideoInfo *info)
{
    Rational sar = info->sar.num > 0 ? info->sar : (Rational){ 0, 0 };
    const char *siting = info->chroma_location == 1 ? "mpeg2"
                         : info->chroma_location == 3 ? "paldv" : "jpeg";
    const char *range = info->color_range == 2 ? " XCOLORRANGE=FULL"
                        : info->color_range == 1 ? " XCOLORRANGE=LIMITED" : "";
    return snprintf(buf, size, "YUV4MPEG2 W%d H%d F%lld:%lld Ip A%lld:%lld C420%s%s\n",
                    info->width, info->height, (long long)info->fps.num,
                    (long long)info->fps.den, (long long)sar.num, (long long)sar.den, siting,
                    range);
}

typedef struct Y4mWriter {
    FILE *f;
    int own_file;
} Y4mWriter;

int y4m_frame_iov(const OmctiPicture *pic, struct iovec iov[4])
{
    static const char marker[6] = "FRAME\n";
    const int w = pic->width, h = pic->height, cw = chroma_size(w), ch = chroma_size(h);
    const int pw[3] = { w, cw, cw }, ph[3] = { h, ch, ch };
    for (int p = 0; p < 3; p++)
        if (pic->stride[p] != pw[p])
            return 0;
    iov[0] = (struct iovec){ (void *)marker, 6 };
    for (int p = 0; p < 3; p++)
        iov[1 + p] = (struct iovec){ pic->data[p], (size_t)pw[p] * ph[p] };
    return 4;
}

int io_write_iov(int fd, struct iovec *iov, int n, int64_t offset, const IoCancel *cancel)
{
    int i = 0;
    while (i < n) {
        ssize_t got = offset < 0 ? writev(fd, iov + i, n - i) : pwritev(fd, iov + i, n - i, offset);
        if (got < 0 && errno == EINTR && !(cancel && cancel->requested && cancel->requested()))
            continue;
        if (got < 0) return -errno;
        if (got == 0) return -ENOSPC;
        /* A signal that came while a blocked write had taken part of the
         * data (a FIFO's reader that read a little) ends it short, not
         * with EINTR: the stop is asked for all the same. */
        if (cancel && cancel->requested && cancel->requested()) return -EINTR;
        if (offset >= 0) offset += got;
        /* A short write: skip what went out and go on. */
        while (i < n && (size_t)got >= iov[i].iov_len) got -= (ssize_t)iov[i++].iov_len;
        if (i < n) {
            iov[i].iov_base = (uint8_t *)iov[i].iov_base + got;
            iov[i].iov_len -= (size_t)got;
        }
    }
    return 0;
}

static int y4m_write(VideoWriter *w, const OmctiPicture *pic, char *err, size_t errlen)
{
    Y4mWriter *s = w->priv;
    const char *name = w->to_stdout ? "stdout" : w->path;
    struct iovec iov[4];
    const int n = y4m_frame_iov(pic, iov);
    if (n) {
        /* Unpadded planes go out as they are: no copy through stdio. */
        if (fflush(s->f) == EOF)
            goto write_error;
        const int e = io_write_iov(fileno(s->f), iov, n, -1, w->cancel);
        if (e < 0)
            return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", name,
                             strerror(-e));
        return 0;
    }
    if (fputs("FRAME\n", s->f) == EOF)
        goto write_error;
    for (int p = 0; p < 3; p++) {
        const int pw = p ? chroma_size(pic->width) : pic->width;
        const int ph = p ? chroma_size(pic->height) : pic->height;
        for (int y = 0; y < ph; y++)
            if (fwrite(pic->data[p] + y * pic->stride[p], 1, pw, s->f) != (size_t)pw)
                goto write_error;
    }
    return 0;
write_error:
    return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", name, strerror(errno));
}

static int y4m_finish(VideoWriter *w, char *err, size_t errlen)
{
    Y4mWriter *s = w->priv;
    const char *name = w->to_stdout ? "stdout" : w->path;
    int bad = fflush(s->f) != 0 || ferror(s->f);
    int e = errno;
    if (s->own_file) {
        bad |= fclose(s->f) != 0;
        if (bad && !e) e = errno;
        s->f = NULL;
    }
    if (bad)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", name,
                         strerror(e ? e : EIO));
    return 0;
}

static void y4m_writer_close(VideoWriter *w)
{
    Y4mWriter *s = w->priv;
    if (!s) return;
    /* Unfinished output to a pipe: what stdio still holds is dropped, or
     * exit() would block writing it to a reader that has stalled. */
    if (!s->own_file && s->f && !w->finished) __fpurge(s->f);
    if (s->own_file && s->f) fclose(s->f);
    free(s);
    w->priv = NULL;
}

static const VideoWriterOps y4m_writer_ops = {
    .write = y4m_write,
    .finish = y4m_finish,
    .close = y4m_writer_close,
};

int y4m_writer_open(VideoWriter **out, const char *path, const VideoInfo *info,
                    const WriterOptions *opt, char *err, size_t errlen)
{
    (void)opt;
    VideoWriter *w = *out;   /* io.c made it: path and tmp_path are set */
    Y4mWriter *s = calloc(1, sizeof *s);
    if (!s) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    w->ops = &y4m_writer_ops;
    w->priv = s;
    if (w->to_stdout) {
        s->f = stdout;
    } else {
        s->f = fopen(w->tmp_path, "wb");
        s->own_file = 1;
        if (!s->f)
            return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path,
                             strerror(errno));
    }
    setvbuf(s->f, NULL, _IOFBF, 1 << 20);
    char header[Y4M_MAX_LINE];
    y4m_format_header(header, sizeof header, info);
    if (fputs(header, s->f) == EOF)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s",
                         w->to_stdout ? "stdout" : path, strerror(errno));
    return 0;
}
