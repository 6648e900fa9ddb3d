/* One y4m file written by several threads at once, each its own frames.
 *
 * Every frame of a y4m stream has the same length, so frame k of the output
 * starts at header + k * (6 + frame bytes): the file can be laid out before
 * any frame exists and each worker of `--workers` / `--devices` writes its
 * frames where they belong. Raw output thus needs no parts and no join (a
 * join would copy every frame a second time, the whole cost of raw output).
 *
 * Each frame goes out in one pwritev() from the picture's own memory. The
 * kernel serialises writers of one file, but that copy is the only one; a
 * mapped file filled by the threads in parallel measured no faster
 * (docs/benchmarks.md, "Two GPUs"), so the simple way stays.
 * The temporary-file-and-rename rule of video_writer_open holds: the file
 * appears under its name only when every frame is in it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "src/common.h"
#include "src/frame.h"
#include "src/io/io_internal.h"

struct Y4mSlots {
    char *path, *tmp_path;
    int fd;
    int overwrite;
    int64_t frames;
    size_t header_len, frame_len;   /* frame_len includes "FRAME\n"        */
    int width, height;
};

typedef struct SlotView {
    Y4mSlots *s;
    int64_t next, end;         /* the view's frames: next .. end - 1       */
    uint8_t *pack;             /* a frame, for pictures with padded rows   */
} SlotView;

static int64_t slot_offset(const Y4mSlots *s, int64_t k)
{
    return (int64_t)s->header_len + k * (int64_t)s->frame_len;
}

static int slot_error(const Y4mSlots *s, int e, char *err, size_t errlen)
{
    return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", s->path,
                     strerror(e ? e : EIO));
}

/* The picture as one y4m frame: its own planes when rows are unpadded,
 * else packed into v->pack. */
static int frame_iov(SlotView *v, const OmctiPicture *pic, struct iovec iov[4])
{
    const int n = y4m_frame_iov(pic, iov);
    if (n)
        return n;
    const int w = pic->width, h = pic->height, cw = chroma_size(w), ch = chroma_size(h);
    const int pw[3] = { w, cw, cw }, ph[3] = { h, ch, ch };
    uint8_t *d = v->pack;
    memcpy(d, "FRAME\n", 6);
    d += 6;
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < ph[p]; y++, d += pw[p])
            memcpy(d, pic->data[p] + (ptrdiff_t)y * pic->stride[p], (size_t)pw[p]);
    iov[0] = (struct iovec){ v->pack, v->s->frame_len };
    return 1;
}

static int view_write(VideoWriter *w, const OmctiPicture *pic, char *err, size_t errlen)
{
    SlotView *v = w->priv;
    Y4mSlots *s = v->s;
    if (v->next >= v->end)
        return set_error(err, errlen, OMCTI_ERR_STATE, "'%s': more frames than laid out",
                         s->path);
    if (pic->width != s->width || pic->height != s->height)
        return set_error(err, errlen, OMCTI_ERR_STATE, "'%s': a %dx%d picture for a %dx%d "
                         "file", s->path, pic->width, pic->height, s->width, s->height);
    struct iovec iov[4];
    const int n = frame_iov(v, pic, iov);
    const int e = io_write_iov(s->fd, iov, n, slot_offset(s, v->next), NULL);
    if (e < 0)
        return slot_error(s, -e, err, errlen);
    v->next++;
    return 0;
}

static int view_finish(VideoWriter *w, char *err, size_t errlen)
{
    SlotView *v = w->priv;
    if (v->next != v->end)
        return set_error(err, errlen, OMCTI_ERR_STATE, "'%s': %lld frames short of the layout",
                         v->s->path, (long long)(v->end - v->next));
    return 0;
}

static void view_close(VideoWriter *w)
{
    SlotView *v = w->priv;
    if (!v) return;
    free(v->pack);
    free(v);
    w->priv = NULL;
}

static const VideoWriterOps slot_view_ops = {
    .write = view_write,
    .finish = view_finish,
    .close = view_close,
};

void y4m_slots_abort(Y4mSlots **ps)
{
    Y4mSlots *s = *ps;
    if (!s) return;
    if (s->fd >= 0) close(s->fd);
    if (s->tmp_path) unlink(s->tmp_path);
    free(s->path);
    free(s->tmp_path);
    free(s);
    *ps = NULL;
}

int y4m_slots_open(Y4mSlots **out, const char *path, const VideoInfo *info, int64_t frames,
                   const WriterOptions *opt, char *err, size_t errlen)
{
    int ret = io_check_output(path, opt->input_path, opt->overwrite, err, errlen);
    if (ret == 0) ret = io_check_output_rate(path, info->fps, err, errlen);
    if (ret < 0) return ret;
    Y4mSlots *s = calloc(1, sizeof *s);
    if (!s) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    s->fd = -1;
    s->overwrite = opt->overwrite;
    s->frames = frames;
    s->width = info->width;
    s->height = info->height;
    s->frame_len = 6 + (size_t)info->width * info->height +
                   2 * (size_t)chroma_size(info->width) * chroma_size(info->height);
    if (!(s->path = strdup(path))) {
        ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (!(s->tmp_path = io_make_temp_path(path, err, errlen))) {
        ret = OMCTI_ERR_IO;
        goto fail;
    }
    if ((s->fd = open(s->tmp_path, O_RDWR | O_CLOEXEC)) < 0) {
        ret = slot_error(s, errno, err, errlen);
        goto fail;
    }
    char header[256];
    s->header_len = (size_t)y4m_format_header(header, sizeof header, info);
    if (pwrite(s->fd, header, s->header_len, 0) != (ssize_t)s->header_len) {
        ret = slot_error(s, errno, err, errlen);
        goto fail;
    }
    *out = s;
    return 0;
fail:
    y4m_slots_abort(&s);
    return ret;
}

int y4m_slots_writer(Y4mSlots *s, int64_t first, int64_t count, VideoWriter **out, char *err,
                     size_t errlen)
{
    if (first < 0 || count < 0 || first + count > s->frames)
        return set_error(err, errlen, OMCTI_ERR_STATE, "'%s': frames %lld..%lld are not laid "
                         "out", s->path, (long long)first, (long long)(first + count));
    SlotView *v = calloc(1, sizeof *v);
    VideoWriter *w = video_writer_new(&slot_view_ops, s->path, NULL, NULL);
    if (v) v->pack = malloc(s->frame_len);
    if (!v || !w || !v->pack) {
        if (v) free(v->pack);
        free(v);
        video_writer_close(&w);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    }
    v->s = s;
    v->next = first;
    v->end = first + count;
    w->priv = v;
    w->to_stdout = 0;          /* a view: nothing of its own to rename */
    *out = w;
    return 0;
}

int y4m_slots_finish(Y4mSlots **ps, char *err, size_t errlen)
{
    Y4mSlots *s = *ps;
    int e = close(s->fd) < 0 ? errno : 0;
    s->fd = -1;
    if (e) {
        int ret = slot_error(s, e, err, errlen);
        y4m_slots_abort(ps);
        return ret;
    }
    int kept = 0;
    int ret = io_commit_output(s->tmp_path, s->path, s->overwrite, &kept, err, errlen);
    if (ret < 0) {
        io_escape_message(err, errlen);
        if (kept) {            /* the result is the user's now, under tmp */
            free(s->tmp_path);
            s->tmp_path = NULL;
        }
        y4m_slots_abort(ps);
        return ret;
    }
    free(s->tmp_path);
    s->tmp_path = NULL;   /* renamed: abort must not remove it */
    y4m_slots_abort(ps);
    return 0;
}
