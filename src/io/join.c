/* `omcti join`: pieces into one file, by stream copy (ffmpeg_write.c) or, for
 * y4m, by concatenating the frames under one header. Same output rules as
 * every other output: checked up front, written to a temporary file beside
 * the target, renamed only when everything succeeded; a FIFO or a character
 * device is written in place, as -o writes one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "src/common.h"
#include "src/io/io_internal.h"

static int y4m_header(FILE *f, char *line, size_t size)
{
    if (!fgets(line, (int)size, f)) return -1;
    return strchr(line, '\n') && !strncmp(line, "YUV4MPEG2 ", 10) ? 0 : -1;
}

static int y4m_join(const char *out, const char *tmp, const char *const *pieces, int n,
                    const IoCancel *cancel, int64_t *frames_out, char *err, size_t errlen)
{
    char head0[4096], head[4096];
    int ret = 0;
    int64_t frames = 0;
    FILE *o = fopen(tmp, "wb");
    if (!o)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", out, strerror(errno));
    char *buf = malloc(1 << 20);
    if (!buf) {
        fclose(o);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < n && ret == 0; k++) {
        FILE *f = fopen(pieces[k], "rb");
        if (!f) {
            ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot open '%s': %s", pieces[k],
                            strerror(errno));
            break;
        }
        if (y4m_header(f, k ? head : head0, sizeof head) < 0)
            ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': not a y4m piece (no "
                            "YUV4MPEG2 header)", pieces[k]);
        else if (k && strcmp(head, head0))
            ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s' cannot follow '%s': the y4m "
                            "headers differ (size, rate or format)", pieces[k], pieces[0]);
        else if (!k && fputs(head0, o) == EOF)
            ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", out,
                            strerror(errno));
        size_t got;
        if (ret == 0 && fflush(o) == EOF)
            ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", out,
                            strerror(errno));
        /* Past stdio: a stop asked for ends a write blocked on a FIFO too. */
        while (ret == 0 && (got = fread(buf, 1, 1 << 20, f)) > 0) {
            struct iovec iov = { buf, got };
            const int e = cancel && cancel->requested() ? -EINTR
                          : io_write_iov(fileno(o), &iov, 1, -1, cancel);
            if (e == -EINTR && cancel && cancel->requested())
                ret = set_error(err, errlen, OMCTI_ERR_INTERRUPT, "interrupted");
            else if (e < 0)
                ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", out,
                                strerror(-e));
        }
        if (ret == 0 && ferror(f))
            ret = set_error(err, errlen, OMCTI_ERR_IO, "'%s': read error: %s", pieces[k],
                            strerror(errno));
        fclose(f);
        if (ret == 0) {
            VideoReader *r = NULL;
            FrameIndex ix;
            if ((ret = video_reader_open(&r, pieces[k], err, errlen)) == 0 &&
                (ret = video_reader_index(r, &ix, err, errlen)) == 0) {
                frames += ix.count;
                frame_index_free(&ix);
            }
            video_reader_close(&r);
        }
    }
    free(buf);
    if (fclose(o) != 0 && ret == 0)
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", out, strerror(errno));
    if (ret == 0 && frames_out) *frames_out = frames;
    return ret;
}

int io_join(const char *out, const char *const *pieces, int n, const char *audio_from,
            const VideoOrigin *origin, int overwrite, int quiet, const IoCancel *cancel,
            int64_t *frames_out, char *err, size_t errlen)
{
    if (n < 1)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "join: no pieces given");
    if (!out || !*out || !strcmp(out, "-"))
        return set_error(err, errlen, OMCTI_ERR_INVALID, "join: the output must be a file "
                         "(use -o FILE)");
    int ret;
    for (int k = 0; k < n; k++) {
        if (access(pieces[k], R_OK) < 0)
            return set_error(err, errlen, OMCTI_ERR_IO, "cannot open '%s': %s", pieces[k],
                             strerror(errno));
        if ((ret = io_check_output(out, pieces[k], overwrite, err, errlen)) < 0) return ret;
    }
    if ((ret = io_check_output(out, audio_from, overwrite, err, errlen)) < 0) return ret;
    const int y4m = io_path_is_y4m(out);
    for (int k = 0; k < n; k++)
        if (io_path_is_y4m(pieces[k]) != y4m)
            return set_error(err, errlen, OMCTI_ERR_INVALID, "join: '%s' and '%s' are not of "
                             "one kind (y4m pieces join into .y4m, others by stream copy)",
                             pieces[k], out);
#if !OMCTI_HAVE_FFMPEG
    if (!y4m)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "cannot join into '%s': omcti was built "
                         "without FFmpeg, only .y4m pieces can be joined", out);
#endif
    (void)origin;                 /* (y4m has no audio) */
    /* A FIFO or a device (-o /dev/null -y) is written in place: a temporary
     * file renamed over it replaced the node with a regular file. */
    const int in_place = io_output_in_place(out);
    char *tmp = in_place ? strdup(out) : io_make_temp_path(out, err, errlen);
    if (!tmp)
        return in_place ? set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory") : OMCTI_ERR_IO;
    if (y4m) {
        if (audio_from && !quiet)
            fprintf(stderr, "omcti: note: y4m has no audio; --audio-from ignored\n");
        ret = y4m_join(out, tmp, pieces, n, cancel, frames_out, err, errlen);
    }
#if OMCTI_HAVE_FFMPEG
    else
        ret = ff_join(out, tmp, pieces, n, audio_from, origin, quiet, cancel, frames_out, err,
                      errlen);
#endif
    /* Never replaces a file that appeared at out meanwhile (without -y): the
     * joined result is then kept under the name the error reports. */
    int kept = 0;
    if (ret == 0 && !in_place) ret = io_commit_output(tmp, out, overwrite, &kept, err, errlen);
    if (ret < 0 && !kept && !in_place) unlink(tmp);
    free(tmp);
    return ret;
}
