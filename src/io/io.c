/* The y4m and FFmpeg back ends in one table, chosen by probe (the name,
 * the first bytes of a regular file), and the reader and writer calls the
 * tools make through it. The rules every output obeys by name (-y, the
 * temporary file, the rename) are output_path.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common.h"
#include "src/io/io_internal.h"

#if OMCTI_HAVE_FFMPEG
#include <libavutil/log.h>
#endif

void io_show_ffmpeg_log(void)
{
#if OMCTI_HAVE_FFMPEG
    /* Any level but libav's default AV_LOG_INFO is the caller's choice,
     * which ffio_quiet_libav() leaves alone. */
    av_log_set_level(AV_LOG_WARNING);
#endif
}

int io_path_is_y4m(const char *path)
{
    size_t n = strlen(path);
    return !strcmp(path, "-") || (n > 4 && !strcasecmp(path + n - 4, ".y4m"));
}

VideoReader *video_reader_new(const VideoReaderOps *ops, const char *path)
{
    VideoReader *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->ops = ops;
    r->path = strdup(path);
    r->info.nb_frames = -1;
    r->info.interlace = '?';
    r->info.time_base = (Rational){ 0, 1 };
    r->pts = VIDEO_NO_PTS;
    r->origin = VIDEO_NO_PTS;
    r->audio_origin = VIDEO_NO_PTS;
    if (!r->path) {
        free(r);
        return NULL;
    }
    return r;
}

static int starts_with_y4m_magic(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char magic[10] = { 0 };
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n == sizeof magic && !memcmp(magic, "YUV4MPEG2 ", 10);
}

/* ---- back ends ---------------------------------------------------------- */

/* A file format back end. probe() says how well it fits path, 0 (not at
 * all) to 100 (certain); st is the input's stat(), NULL for an output or
 * stdin (then only the name counts). The best score above 0 wins, the
 * earlier entry on a tie. */
typedef struct IoBackend {
    const char *name;
    int (*probe)(const char *path, const struct stat *st);
    int (*reader_open)(VideoReader **r, const char *path, const IoCancel *cancel, char *err,
                       size_t errlen);
    int (*writer_open)(VideoWriter **w, const char *path, const VideoInfo *info,
                       const WriterOptions *opt, char *err, size_t errlen);
} IoBackend;

static int y4m_probe(const char *path, const struct stat *st)
{
    if (io_path_is_y4m(path))
        return 100;   /* also a file named .y4m that is not: it says so */
    if (!st)
        return 0;
    if (!S_ISREG(st->st_mode))
        return 1;     /* a pipe by name: y4m only when nothing else reads it */
    return starts_with_y4m_magic(path) ? 100 : 0;
}

static int y4m_reader_open_cancel(VideoReader **r, const char *path, const IoCancel *cancel,
                                  char *err, size_t errlen)
{
    (void)cancel;   /* y4m reads are made interruptible by the caller's reader */
    return y4m_reader_open(r, path, err, errlen);
}

#if OMCTI_HAVE_FFMPEG
/* Anything libavformat may read or write; a pipe, FIFO or device by name
 * (<(...), /dev/stdin) is read once only, so it is not probed here (that
 * would consume its first bytes): FFmpeg probes it from its own buffer
 * and reads y4m too. */
static int ff_probe(const char *path, const struct stat *st)
{
    (void)st;
    return strcmp(path, "-") ? 50 : 0;
}
#endif

static const IoBackend io_backends[] = {
    { "y4m", y4m_probe, y4m_reader_open_cancel, y4m_writer_open },
#if OMCTI_HAVE_FFMPEG
    { "ffmpeg", ff_probe, ff_reader_open, ff_writer_open },
#endif
};

static const IoBackend *io_backend_probe(const char *path, const struct stat *st)
{
    const IoBackend *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < sizeof io_backends / sizeof io_backends[0]; i++) {
        int score = io_backends[i].probe(path, st);
        if (score > best_score) {
            best = &io_backends[i];
            best_score = score;
        }
    }
    return best;
}

int io_input_is_y4m(const char *path)
{
    struct stat st;
    if (io_path_is_y4m(path))
        return 1;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return 0;
    const IoBackend *be = io_backend_probe(path, &st);
    return be && !strcmp(be->name, "y4m");
}

int video_reader_open(VideoReader **r, const char *path, char *err, size_t errlen)
{
    return video_reader_open_cancel(r, path, NULL, err, errlen);
}

int io_name_has_frame_number(const char *path)
{
    const char *name = strrchr(path, '/');
    for (const char *p = strchr(name ? name + 1 : path, '%'); p; p = strchr(p + 1, '%')) {
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9') q++;
        if (*q == 'd') return 1;
    }
    return 0;
}

/* Whether a name that is not there is an image sequence's pattern: "" for
 * a frame number (io_name_has_frame_number()), "-pattern_type glob " for a
 * picture's name with a glob in it ("*.png", "shot-?.jpg"), else NULL
 * (brackets and '?' in a video's name, "Movie [1080p].mkv", are no
 * pattern). The file name only: folders may have any name. */
static const char *sequence_pattern(const char *path)
{
    if (io_name_has_frame_number(path))
        return "";
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    static const char *const pictures[] = { "png", "jpg", "jpeg", "tif", "tiff", "bmp",
                                            "dpx", "exr", "webp", "tga", NULL };
    const char *dot = strrchr(name, '.');
    int picture = 0;
    for (int k = 0; dot && pictures[k]; k++)
        picture |= !strcasecmp(dot + 1, pictures[k]);
    return picture && strpbrk(name, "*?[") ? "-pattern_type glob " : NULL;
}

/* Whether a name reads as a URL: a scheme (a letter, then letters,
 * digits, '+', '-', '.') and "://", as http://, rtsp://, s3://. */
static int looks_like_url(const char *path)
{
    const char *p = path;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
        return 0;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
           *p == '+' || *p == '-' || *p == '.')
        p++;
    return !strncmp(p, "://", 3);
}

int video_reader_open_cancel(VideoReader **r, const char *path, const IoCancel *cancel,
                             char *err, size_t errlen)
{
    *r = NULL;
    if (!path || !*path)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "no input given (use -i INPUT)");
    int ret;
    struct stat st;
    const IoBackend *be = NULL;
    if (!strcmp(path, "-"))
        be = io_backend_probe(path, NULL);
    else if (stat(path, &st) < 0) {
        const char *glob = errno == ENOENT ? sequence_pattern(path) : NULL;
        /* omcti opens one file by its name, as a player does. The command
         * shown quotes the name; a name with a quote in it would break
         * that quoting: then the command shows where the pattern goes. */
        if (glob)
            return set_error(err, errlen, OMCTI_ERR_IO, "cannot open '%s': %s (omcti reads "
                             "one video file, not an image sequence: make one first, e.g. "
                             "ffmpeg -framerate 25 %s-i '%s' -c:v ffv1 seq.mkv)", path,
                             strerror(ENOENT), glob, strchr(path, '\'') ? "PATTERN" : path);
        /* a URL is a name of a file here (every input is opened through
         * FFmpeg's file protocol alone): say so, not just "no such file" */
        if (errno == ENOENT && looks_like_url(path))
            return set_error(err, errlen, OMCTI_ERR_IO, "cannot open '%s': %s (omcti reads "
                             "local files and pipes; a URL is not fetched: download it "
                             "first)", path, strerror(ENOENT));
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot open '%s': %s", path,
                         strerror(errno));
    }
    else if (S_ISDIR(st.st_mode))
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot open '%s': it is a directory",
                         path);
    else if (access(path, R_OK) < 0)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot open '%s': %s", path,
                         strerror(errno));
    else
        be = io_backend_probe(path, &st);
    if (!be)
        ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "cannot read '%s': not a y4m file, "
                        "and omcti was built without FFmpeg", path);
    else
        ret = be->reader_open(r, path, cancel, err, errlen);
    if (ret < 0) {
        io_escape_message(err, errlen);
        return ret;
    }
    (*r)->cancel = cancel;
    return 0;
}

int io_check_size(const char *path, int64_t w, int64_t h, char *err, size_t errlen)
{
    if (w > IO_MAX_SIDE || h > IO_MAX_SIDE || w * h > IO_MAX_PIXELS)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "'%s': the picture size %lldx%lld is larger than omcti handles "
                         "(at most %d pixels a side and %lld megapixels)", path, (long long)w,
                         (long long)h, IO_MAX_SIDE, IO_MAX_PIXELS >> 20);
    return 0;
}

int io_path_is_regular(const char *path)
{
    struct stat st;
    return strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const VideoInfo *video_reader_info(const VideoReader *r)
{
    return &r->info;
}

int64_t video_reader_pts(const VideoReader *r)
{
    return r->pts;
}

int64_t video_reader_origin(const VideoReader *r)
{
    return r->origin;
}

int64_t video_reader_audio_origin(const VideoReader *r)
{
    return r->audio_origin;
}

int video_reader_read(VideoReader *r, OmctiPicture *pic, char *err, size_t errlen)
{
    int ret = r->ops->read(r, pic, err, errlen);
    if (ret < 0) io_escape_message(err, errlen);
    return ret;
}

void video_reader_damage(const VideoReader *r, VideoDamage *d)
{
    memset(d, 0, sizeof *d);
    d->pictures = -1;
    if (r->ops->damage)
        r->ops->damage(r, d);
}

void video_reader_defer_damage(VideoReader *r)
{
    r->defer_damage = 1;
}

void video_damage_add(VideoDamage *sum, const VideoDamage *d)
{
    sum->bad += d->bad;
    sum->packets += d->packets;
    sum->concealed += d->concealed;
    sum->leading += d->leading;
    sum->pictures = -1;   /* pieces overlap: not a count of the file's */
    if (d->expect > sum->expect)
        sum->expect = d->expect;
    if (d->end != VIDEO_END_INTACT) {
        sum->end = d->end;
        sum->stop_pos = d->stop_pos;
        sum->size = d->size;
    }
}

static const char *plural(int64_t n, const char *one, const char *more)
{
    return n == 1 ? one : more;
}

void video_damage_warn(const char *path, const VideoDamage *d)
{
    if (!d->bad && !d->concealed && !d->leading && d->end == VIDEO_END_INTACT)
        return;
    char name[1024], msg[1024];
    size_t n = 0;
#define ADD(...)                                                                         \
    (n = n < sizeof msg ? n + (size_t)snprintf(msg + n, sizeof msg - n, __VA_ARGS__) : n)
    if (d->end == VIDEO_END_LOST_SYNC)
        ADD(" the file is damaged at about byte %lld of %lld, the rest could not be read;",
            (long long)d->stop_pos, (long long)d->size);
    else if (d->end == VIDEO_END_DAMAGED_INSIDE)
        ADD(" the file is damaged inside (pictures are missing, its end is there);");
    else if (d->end == VIDEO_END_EARLY)
        ADD(" the file ends early (truncated?);");
    if (d->bad)
        ADD(" %lld of %lld packets could not be decoded and were skipped;", (long long)d->bad,
            (long long)d->packets);
    if (d->leading)
        ADD(" %lld %s before the first key frame %s skipped;", (long long)d->leading,
            plural(d->leading, "picture", "pictures"), plural(d->leading, "was", "were"));
    if (d->concealed)
        ADD(" %lld %s decoding errors concealed;", (long long)d->concealed,
            plural(d->concealed, "picture had", "pictures had"));
    if (d->pictures >= 0) {
        ADD(" %lld %s read", (long long)d->pictures, plural(d->pictures, "picture", "pictures"));
        if (d->expect > 0)
            ADD(" of about %lld", (long long)d->expect);
    } else if (n > 0 && n < sizeof msg) {
        msg[--n] = 0;   /* the last ';' */
    }
#undef ADD
    fprintf(stderr, "omcti: warning: '%s':%s\n", io_printable(path, name, sizeof name), msg);
}

void video_reader_close(VideoReader **pr)
{
    VideoReader *r = *pr;
    if (!r) return;
    if (r->ops && r->ops->close) r->ops->close(r);
    free(r->path);
    free(r);
    *pr = NULL;
}

VideoWriter *video_writer_new(const VideoWriterOps *ops, const char *path,
                              const char *tmp_path, const VideoInfo *info)
{
    VideoWriter *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->ops = ops;
    w->path = strdup(path);
    w->tmp_path = tmp_path ? strdup(tmp_path) : NULL;
    w->to_stdout = !tmp_path;
    if (info) w->info = *info;
    if (!w->path || (tmp_path && !w->tmp_path)) {
        free(w->path);
        free(w->tmp_path);
        free(w);
        return NULL;
    }
    return w;
}

int video_reader_index(VideoReader *r, FrameIndex *ix, char *err, size_t errlen)
{
    memset(ix, 0, sizeof *ix);
    if (!r->ops->index)
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "'%s': cannot count the frames of a stream (segments need a file)",
                         r->path);
    int ret = r->ops->index(r, ix, err, errlen);
    if (ret < 0) {
        io_escape_message(err, errlen);
        frame_index_free(ix);
        return ret;
    }
    if (frame_index_identity(r->path, &ix->file_size, &ix->file_mtime) < 0)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot open '%s': %s", r->path,
                         strerror(errno));
    return 0;
}

int video_reader_seek(VideoReader *r, const FrameIndex *ix, int64_t frame, char *err,
                      size_t errlen)
{
    if (frame < 0 || frame >= ix->count)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': frame %lld is outside the %lld "
                         "frames of the input", r->path, (long long)frame, (long long)ix->count);
    if (!r->ops->seek)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': cannot seek in a stream "
                         "(segments need a file)", r->path);
    int ret = r->ops->seek(r, ix, frame, err, errlen);
    if (ret < 0) io_escape_message(err, errlen);
    return ret;
}

int io_check_output_timing(const char *path, Rational fps, char *err, size_t errlen)
{
    /* y4m keeps the rate itself: every picture is a frame of it */
    if (!path || !*path || io_path_is_y4m(path))
        return 0;
#if OMCTI_HAVE_FFMPEG
    const int ret = ff_check_output_timing(path, fps, err, errlen);
    if (ret < 0)
        io_escape_message(err, errlen);
    return ret;
#else
    (void)fps;
    (void)err;
    (void)errlen;
    return 0;
#endif
}

static int writer_open(VideoWriter **out, const char *path, const VideoInfo *info,
                       const WriterOptions *opt, char *err, size_t errlen)
{
    *out = NULL;
    if (!path || !*path)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "no output given (use -o OUTPUT)");
    const int rate_ret = io_check_output_rate(path, info->fps, err, errlen);
    if (rate_ret < 0)
        return rate_ret;
    const int to_stdout = !strcmp(path, "-");
    int in_place = 0;
    if (!to_stdout) {
        /* the output is the input: in the words of --workers, join and
         * eval --plot (io_check_output(); what stands there is judged
         * below, with -y's answer); stdin read from the output's file is
         * the input too */
        int ret = opt->input_path ? io_check_output(path, opt->input_path, 1, err, errlen) : 0;
        if (ret == 0 && opt->input_path && !strcmp(opt->input_path, "-") &&
            io_fd_is_file(STDIN_FILENO, path))
            ret = set_error(err, errlen, OMCTI_ERR_INVALID, "output '%s' is also an input "
                            "(stdin, -i -); choose another name", path);
        if (ret == 0)
            ret = io_check_existing(path, opt->overwrite, &in_place, err, errlen);
        if (ret < 0)
            return ret;
    } else if (opt->input_path && strcmp(opt->input_path, "-") &&
               io_fd_is_file(STDOUT_FILENO, opt->input_path)) {
        return set_error(err, errlen, OMCTI_ERR_INVALID, "output '-' (stdout) is also an "
                         "input ('%s'); choose another name", opt->input_path);
    }
    const IoBackend *be = io_backend_probe(path, NULL);
    if (!be)
        return set_error(err, errlen, OMCTI_ERR_FORMAT,
                         "cannot write '%s': omcti was built without FFmpeg, only .y4m "
                         "output is possible", path);
    char *tmp = NULL;
    if (in_place && !(tmp = strdup(path)))
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    if (!to_stdout && !in_place && !(tmp = io_make_temp_path(path, err, errlen)))
        return OMCTI_ERR_IO;
    VideoWriter *w = video_writer_new(NULL, path, tmp, info);
    if (!w) {
        if (tmp && !in_place) unlink(tmp);
        free(tmp);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    }
    free(tmp);
    w->overwrite = opt->overwrite;
    w->in_place = in_place;
    w->cancel = opt->cancel;
    int ret = be->writer_open(&w, path, info, opt, err, errlen);
    if (ret < 0) {
        io_escape_message(err, errlen);
        video_writer_abort(&w);
        return ret;
    }
    *out = w;
    return 0;
}

int video_writer_open(VideoWriter **out, const char *path, const VideoInfo *info,
                      const WriterOptions *opt, char *err, size_t errlen)
{
    int ret = writer_open(out, path, info, opt, err, errlen);
    if (ret < 0) io_escape_message(err, errlen);
    return ret;
}

int video_writer_write(VideoWriter *w, const OmctiPicture *pic, char *err, size_t errlen)
{
    int ret = w->ops->write(w, pic, err, errlen);
    if (ret < 0) io_escape_message(err, errlen);
    return ret;
}

int video_writer_finish(VideoWriter *w, char *err, size_t errlen)
{
    int ret = w->ops->finish(w, err, errlen);
    if (ret < 0) {
        io_escape_message(err, errlen);
        return ret;
    }
    if (w->tmp_path && !w->in_place &&
        (ret = io_commit_output(w->tmp_path, w->path, w->overwrite, &w->kept, err, errlen)) < 0) {
        io_escape_message(err, errlen);
        return ret;
    }
    w->finished = 1;
    return 0;
}

void video_writer_abort(VideoWriter **pw)
{
    VideoWriter *w = *pw;
    if (!w) return;
    if (w->ops && w->ops->close) w->ops->close(w);
    w->ops = NULL;
    if (w->tmp_path && !w->kept && !w->in_place) unlink(w->tmp_path);
    video_writer_close(pw);
}

void video_writer_close(VideoWriter **pw)
{
    VideoWriter *w = *pw;
    if (!w) return;
    if (w->ops && w->ops->close) w->ops->close(w);
    /* Anything not renamed into place is not the user's file. */
    if (w->tmp_path && !w->finished && !w->kept && !w->in_place)
        unlink(w->tmp_path);
    free(w->path);
    free(w->tmp_path);
    free(w);
    *pw = NULL;
}
