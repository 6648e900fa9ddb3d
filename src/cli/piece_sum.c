/* A piece's checksum file, PIECE.sum (segment.h): the options key that
 * identifies a piece, writing the file once the piece is in place, reading
 * and checking it, and the check before --segment writes. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "omcti.h"
#include "src/common.h"
#include "src/cli/segment.h"
#include "src/io/io.h"
/* io_check_existing(): the rules of every output name, shared, not copied */
#include "src/io/io_internal.h"
#include "src/cli/segment_internal.h"

#define PIECE_OUTPUT_REVISION 7

/* FNV-1a, 64 bits, over memory (piece files are hashed by piece_hash_file). */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}
#define FNV_OFFSET 1469598103934665603ULL

void segment_options_key(const CliOptions *o, int64_t n, VideoOrigin origin, char *buf,
                         size_t len)
{
    const OmctiSettings *s = &o->settings;
    char rate[64], opts[512];
    if (o->mode == RATE_FPS)
        snprintf(rate, sizeof rate, "fps:%lld/%lld", (long long)o->fps.num, (long long)o->fps.den);
    else
        snprintf(rate, sizeof rate, "%s:%d", o->mode == RATE_SLOWMO ? "slowmo" : "factor",
                 o->factor);
    char in[PATH_MAX] = "";
    if (!realpath(o->input, in)) snprintf(in, sizeof in, "%s", o->input);
    struct stat st;
    long long size = -1, mt = -1;
    if (stat(in, &st) == 0) {
        size = (long long)st.st_size;
        mt = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    }
    /* What decides the bytes of every piece of one conversion (codec: only
     * its length and hash, the name is the user's). out-rev: the revision
     * of what the same options produce, raised when a default or the
     * pictures change (2: issue 15's CRF 23 and 8-bit output, issue 16's
     * filter; 3: issue 16's motion search, its chain and lead-in; 4: issue
     * 16's local smoothness, MPEG-PS timestamps filled in by the index), so
     * that pieces of an older omcti are not taken for this
     * one's. */
    const char *codec = o->codec ? o->codec : "-";
    snprintf(opts, sizeof opts, "frames=%lld rate=%s method=%s search=%s block=%d range=%d "
             "scd=%d scdthr=%.6g codec=%zu:%016" PRIx64 " crf=%d lossless=%d%s out-rev=%d", (long long)n,
             rate, omcti_method_name(s->method), omcti_search_name(s->search), s->block,
             s->range, (int)s->scd, s->scd_threshold, strlen(codec),
             fnv1a(FNV_OFFSET, codec, strlen(codec)), o->crf, o->lossless,
             /* pieces of the default (pad) keep the key they had */
             o->odd_size == ODD_SIZE_CROP ? " odd-size=crop"
             : o->odd_size == ODD_SIZE_FAIL ? " odd-size=fail" : "", PIECE_OUTPUT_REVISION);
    const int64_t first = o->seg_count > 0 ? split_point(n, o->seg_index, o->seg_count) : 0;
    const int64_t end = o->seg_count > 0 ? split_point(n, (int64_t)o->seg_index + 1,
                                                       o->seg_count) : n;
    char org[96] = "";
    if (origin.time_base.den > 0)
        snprintf(org, sizeof org, "origin %lld %lld %lld\n", (long long)origin.pts,
                 (long long)origin.time_base.num, (long long)origin.time_base.den);
    snprintf(buf, len, "piece %d %d\nsource %lld %lld %lld\noptions %016" PRIx64 "\n"
             "range %lld %lld\n%skey segment=%d/%d %s input=%s:%lld:%lld\n", o->seg_index,
             o->seg_count, size, mt, (long long)n, fnv1a(FNV_OFFSET, opts, strlen(opts)),
             (long long)first, (long long)end, org, o->seg_index, o->seg_count, opts, in, size,
             mt);
}

int piece_sum_path(const char *piece, char *buf, size_t len)
{
    return snprintf(buf, len, "%s.sum", piece) < (int)len ? 0 : -1;
}

/* A regular file opened for reading: a FIFO or a device named as a piece
 * or its .sum would block or never end. -1 with errno set otherwise. */
static int open_regular(const char *path)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return -1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        const int e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* FNV-1a, 64 bits: no dependency, fast enough (about 1 GB/s) next to the
 * conversion, and only meant to catch a piece cut short or rewritten. */
int piece_hash_file(const char *path, int64_t *size, uint64_t *hash)
{
    int fd = open_regular(path);
    if (fd < 0) return -1;
    static const size_t bufsize = 1 << 20;
    unsigned char *buf = malloc(bufsize);
    if (!buf) {
        close(fd);
        return -1;
    }
    uint64_t h = FNV_OFFSET;
    int64_t total = 0;
    ssize_t got;
    while ((got = read(fd, buf, bufsize)) > 0) {
        h = fnv1a(h, buf, (size_t)got);
        total += got;
    }
    const int e = errno;
    free(buf);
    close(fd);
    if (got < 0) {
        errno = e;
        return -1;
    }
    *size = total;
    *hash = h;
    return 0;
}

/* The frames a finished piece holds (a y4m offset pass or a demux pass). */
static int count_frames(const char *piece, int64_t *frames, char *err, size_t errlen)
{
    VideoReader *r = NULL;
    FrameIndex ix;
    int ret = video_reader_open(&r, piece, err, errlen);
    if (ret == 0 && (ret = video_reader_index(r, &ix, err, errlen)) == 0) {
        *frames = ix.count;
        frame_index_free(&ix);
    }
    video_reader_close(&r);
    return ret;
}

/* Whether the regular file at path (through a link) is a checksum file of
 * ours. */
static int sum_is_ours(const char *path)
{
    char head[16] = "";
    const int fd = open_regular(path);
    if (fd < 0) return 0;
    const ssize_t got = read(fd, head, sizeof head - 1);
    close(fd);
    return got >= 12 && !memcmp(head, "omcti-piece ", 12);
}

/* text into the FIFO or device at path, as -o writes one: no O_CREAT (a
 * node removed meanwhile is not made a file), and only while it still is
 * one. A FIFO waits in open() for its reader. */
static int write_in_place(const char *path, const char *text, size_t len, char *err,
                          size_t errlen)
{
    const int fd = io_open_in_place(path);
    if (fd == -ENOTSUP)
        return set_error(err, errlen, OMCTI_ERR_IO, "'%s' is no longer a FIFO or a device; "
                         "the checksum was not written there", path);
    int e = fd < 0 ? -fd : 0;
    for (size_t off = 0; !e && off < len;) {
        const ssize_t put = write(fd, text + off, len - off);
        if (put < 0) e = errno;   /* EINTR too: Ctrl-C, which the caller reports */
        else off += (size_t)put;
    }
    if (fd >= 0 && close(fd) < 0 && !e && errno != EINTR) e = errno;
    return e ? set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path, strerror(e))
             : 0;
}

int piece_sum_write(const char *piece, const char *key, int overwrite, char *err,
                    size_t errlen)
{
    int64_t size, frames = 0;
    uint64_t hash;
    char path[PATH_MAX + 8], tmp[PATH_MAX + 32], target[PATH_MAX], *text = NULL;
    if (piece_sum_path(piece, path, sizeof path) < 0)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': the name is too long", piece);
    /* A piece written into a FIFO or a device (-o /dev/null) has no bytes
     * to describe, as one on stdout: no checksum file, and its name is
     * left alone (piece_sum_prepare()). */
    if (io_output_in_place(piece)) return 0;
    if (piece_hash_file(piece, &size, &hash) < 0)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot read '%s': %s", piece,
                         strerror(errno));
    int ret = count_frames(piece, &frames, err, errlen);
    if (ret < 0) return ret;
    const int len = asprintf(&text, "omcti-piece 3\nframes %" PRId64 "\nsize %" PRId64
                             "\nfnv1a64 %016" PRIx64 "\n%s", frames, size, hash, key);
    if (len < 0) return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    /* What stands at PIECE.sum, under the rules of every output: nothing
     * (a new file); a FIFO or a device kept with -y (written in place,
     * never replaced); a file, or a link to one (written through, the link
     * kept), replaced with -y or when it is a checksum file of ours, as
     * piece_sum_prepare() allows. The old one stays until now, as the old
     * piece stays until the new one is complete: a run that fails leaves
     * both as they were. Without -y, one that is not ours appeared during
     * the run and is kept. */
    int in_place = 0, replace = 0;
    struct stat st;
    if ((ret = io_check_existing(path, 1, &in_place, err, errlen)) < 0) goto out;
    if (in_place) {
        ret = write_in_place(path, text, (size_t)len, err, errlen);
        goto out;
    }
    const char *dest = path;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(path, target) || (!overwrite && !sum_is_ours(target))) {
            ret = set_error(err, errlen, OMCTI_ERR_IO, "'%s' appeared during the run and is not "
                            "an omcti checksum file; it was not replaced", path);
            goto out;
        }
        dest = target;
        replace = 1;
    } else {
        replace = overwrite || sum_is_ours(path);
    }
    /* A short temporary name beside the file written (the link's target):
     * PIECE.sum may be as long as a name can be, PIECE.sum.tmp-PID not. */
    const char *slash = strrchr(dest, '/');
    snprintf(tmp, sizeof tmp, "%.*s.omcti-sum-XXXXXX", slash ? (int)(slash - dest + 1) : 0,
             dest);
    const int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        const int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path, strerror(e));
        goto out;
    }
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);   /* mkstemp's 0600 is still usable */
    fwrite(text, 1, (size_t)len, f);
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad) {
        unlink(tmp);
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path,
                        strerror(errno ? errno : EIO));
        goto out;
    }
    /* Never over another file: one that appeared meanwhile is kept, and
     * so is ours then (the line names it). */
    int kept = 0;
    if ((ret = io_commit_output(tmp, path, replace, &kept, err, errlen)) < 0 && !kept)
        unlink(tmp);
out:
    free(text);
    return ret;
}

/* ---- reading a checksum file: an input like any other -------------------- */

#define SUM_MAX 16384   /* larger than any checksum file omcti writes */

/* 16 lower-case hex digits filling all of s. */
static int parse_hex64(const char *s, uint64_t *v)
{
    if (strlen(s) != 16 || strspn(s, "0123456789abcdef") != 16) return -1;
    *v = strtoull(s, NULL, 16);
    return 0;
}

/* Cuts the next line off *p ("NAME VALUES"), checks NAME, returns VALUES. */
static char *sum_line(char **p, const char *name)
{
    char *line = *p, *nl = strchr(line, '\n');
    if (!nl) return NULL;
    *nl = 0;
    *p = nl + 1;
    const size_t n = strlen(name);
    return !strncmp(line, name, n) && line[n] == ' ' ? line + n + 1 : NULL;
}

/* Splits "A B [C]" into int64s; exactly count of them. */
static int sum_numbers(char *v, int count, int64_t *out)
{
    for (int k = 0; k < count; k++) {
        if (!v) return -1;
        char *sp = strchr(v, ' ');
        if (sp) *sp = 0;
        if ((sp != NULL) != (k + 1 < count) || io_parse_i64(v, &out[k]) < 0) return -1;
        v = sp ? sp + 1 : NULL;
    }
    return 0;
}

int piece_sum_read(const char *piece, PieceSum *ps, char *err, size_t errlen)
{
    char path[PATH_MAX + 8];
    memset(ps, 0, sizeof *ps);
    if (piece_sum_path(piece, path, sizeof path) < 0)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': the name is too long", piece);
    const int fd = open_regular(path);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        if (errno == EINVAL)
            return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': not a valid omcti checksum "
                             "file (not a regular file)", path);
        return set_error(err, errlen, OMCTI_ERR_IO, "'%s' has no checksum file '%s' (%s): "
                         "join takes the pieces of omcti --segment with their .sum files",
                         piece, path, strerror(errno));
    }
    char *buf = malloc(SUM_MAX + 1);
    if (!buf) {
        fclose(f);
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
    }
    const size_t got = fread(buf, 1, SUM_MAX + 1, f);
    const int rerr = ferror(f);
    fclose(f);
    int ret = 0;
    int64_t v[3];
    char *p = buf, *val;
    buf[got < SUM_MAX ? got : SUM_MAX] = 0;
#define BAD(why) do { ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': not a valid omcti " \
                      "checksum file (%s)", path, why); goto out; } while (0)
    if (rerr) BAD("read error");
    if (got > SUM_MAX || memchr(buf, 0, got)) BAD("too large or binary");
    if (!(val = sum_line(&p, "omcti-piece"))) BAD("no omcti-piece line");
    /* 2: no origin line; 1: not even the piece's place. Either was written
     * by an omcti whose pictures differ from this one's (out-rev). */
    if (!strcmp(val, "1") || !strcmp(val, "2"))
        BAD("written by an older omcti; convert the segment again");
    if (strcmp(val, "3")) BAD("unknown version");
    /* at most 100000 pieces: their counts add up without overflow */
    if (sum_numbers(sum_line(&p, "frames"), 1, &ps->frames) < 0 || ps->frames < 1 ||
        ps->frames > INT64_MAX / 100000)
        BAD("frames");
    if (sum_numbers(sum_line(&p, "size"), 1, &ps->size) < 0 || ps->size < 0) BAD("size");
    if (!(val = sum_line(&p, "fnv1a64")) || parse_hex64(val, &ps->hash) < 0) BAD("fnv1a64");
    /* the identity block, as segment_options_key() wrote it */
    snprintf(ps->key, sizeof ps->key, "%s", p);
    if (sum_numbers(sum_line(&p, "piece"), 2, v) < 0 || v[1] < 1 || v[1] > 100000 ||
        v[0] < 0 || v[0] >= v[1])
        BAD("piece");
    ps->index = (int)v[0];
    ps->count = (int)v[1];
    if (sum_numbers(sum_line(&p, "source"), 3, v) < 0 || v[2] < 1) BAD("source");
    ps->src_size = v[0];
    ps->src_mtime = v[1];
    ps->src_frames = v[2];
    if (!(val = sum_line(&p, "options")) || parse_hex64(val, &ps->options) < 0) BAD("options");
    if (sum_numbers(sum_line(&p, "range"), 2, v) < 0) BAD("range");
    ps->first = v[0];
    ps->end = v[1];
    if (ps->first != split_point(ps->src_frames, ps->index, ps->count) ||
        ps->end != split_point(ps->src_frames, (int64_t)ps->index + 1, ps->count))
        BAD("the frame range is not that of its piece number");
    if (!strncmp(p, "origin ", 7)) {
        if (sum_numbers(sum_line(&p, "origin"), 3, v) < 0 || v[0] == VIDEO_NO_PTS ||
            v[1] < 1 || v[2] < 1 || v[1] > INT32_MAX || v[2] > INT32_MAX)
            BAD("origin");
        ps->origin = (VideoOrigin){ v[0], { v[1], v[2] } };
    }
    if (strncmp(p, "key ", 4) || !strchr(p, '\n')) BAD("key");
#undef BAD
out:
    free(buf);
    return ret;
}

int piece_sum_check(const char *piece, const char *key, int full_check)
{
    PieceSum ps;
    char err[256];
    if (piece_sum_read(piece, &ps, err, sizeof err) < 0 || strcmp(ps.key, key)) return 0;
    struct stat st;
    if (stat(piece, &st) < 0 || st.st_size != ps.size) return 0;
    if (!full_check) return 1;
    int64_t s2;
    uint64_t h2;
    return piece_hash_file(piece, &s2, &h2) == 0 && s2 == ps.size && h2 == ps.hash;
}

int piece_sum_prepare(const CliOptions *o, char *err, size_t errlen)
{
    char path[PATH_MAX + 8];
    struct stat st;
    if (!strcmp(o->output, "-")) return 0;
    if (piece_sum_path(o->output, path, sizeof path) < 0)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': the name is too long", o->output);
    /* never over the input, -y or not (it was replaced by the checksum) */
    if (o->input && strcmp(o->input, "-") &&
        (io_same_file(path, o->input) || !strcmp(path, o->input)))
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s' is the input file; --segment "
                         "writes the piece's checksum file there (choose another output name)",
                         path);
    /* An output that may not be replaced fails next, touching nothing. */
    if (!o->overwrite && stat(o->output, &st) == 0) return 0;
    /* One written in place (a FIFO, /dev/null) gets no checksum file
     * (piece_sum_write()): OUT.sum is left as it is. */
    if (io_output_in_place(o->output)) return 0;
    /* A name that leaves no room for ".sum" fails now, not after the work. */
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    const long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max > 0 && (long)strlen(slash ? slash + 1 : path) > name_max)
        return set_error(err, errlen, OMCTI_ERR_INVALID, "'%s': the name is too long for its "
                         "checksum file '%s.sum' (at most %ld characters); choose a shorter one",
                         o->output, slash ? strrchr(o->output, '/') + 1 : o->output,
                         name_max - 4);
    if (lstat(path, &st) < 0) return 0;
    /* Only a checksum file of ours (a regular file, or a link to one) is
     * replaced without -y. */
    if (!o->overwrite && !sum_is_ours(path))
        return set_error(err, errlen, OMCTI_ERR_IO, "'%s' exists and is not an omcti checksum "
                         "file; --segment writes one there (use -y to overwrite it)", path);
    /* The rules of -o: no folder, block device, socket or link to nothing;
     * a FIFO or a character device is kept and written in place at the end
     * (never unlinked or replaced by a file). */
    int in_place = 0;
    if (io_check_existing(path, 1, &in_place, err, errlen) < 0) return OMCTI_ERR_IO;
    /* Nothing is removed or emptied here: piece_sum_write() replaces the
     * old one once the piece is in place, so that a run that fails keeps
     * the old piece with its checksum file. */
    return 0;
}
