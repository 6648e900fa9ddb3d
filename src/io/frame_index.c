/* The frame index of a file (io.h): built by the back ends, saved as text so
 * that a cluster's tasks share one pass over the input, and checked against
 * the file on load. Format:
 *   omcti-frame-index 2
 *   file SIZE MTIME_NS
 *   kind pts|offset STREAM
 *   frames N
 *   keys 0|1|2      (2: none, because two pictures share a timestamp)
 *   N lines, one key each (keys 1), or every picture's time (keys 2: sorted,
 *   some equal)
 * Version 1 had no keys 2: its "keys 0" may stand for either, and such an
 * index is refused as stale (farm makes it again). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common.h"
#include "src/io/io_internal.h"

static int file_identity(const char *path, int64_t *size, int64_t *mtime)
{
    struct stat st;
    if (stat(path, &st) < 0) return -1;
    *size = st.st_size;
    *mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    return 0;
}

void frame_index_free(FrameIndex *ix)
{
    free(ix->key);
    free(ix->times);
    memset(ix, 0, sizeof *ix);
}

int frame_index_identity(const char *path, int64_t *size, int64_t *mtime)
{
    return file_identity(path, size, mtime);
}

int frame_index_save(const FrameIndex *ix, const char *path, char *err, size_t errlen)
{
    struct stat st;
    const int existed = lstat(path, &st) == 0;
    char *tmp = io_make_temp_path(path, err, errlen);
    if (!tmp) return OMCTI_ERR_IO;
    FILE *f = fopen(tmp, "w");
    int ret = 0, kept = 0;
    if (!f) {
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        goto out;
    }
    fprintf(f, "omcti-frame-index 2\nfile %" PRId64 " %" PRId64 "\nkind %s %d\nframes %" PRId64
            "\nkeys %d\n", ix->file_size, ix->file_mtime,
            ix->kind == FRAME_INDEX_PTS ? "pts" : "offset", ix->stream, ix->count,
            ix->key ? 1 : ix->repeated ? 2 : 0);
    const int64_t *keys = ix->key ? ix->key : ix->repeated ? ix->times : NULL;
    if (keys)
        for (int64_t k = 0; k < ix->count; k++)
            fprintf(f, "%" PRId64 "\n", keys[k]);
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad) {
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path,
                        strerror(errno ? errno : EIO));
        goto out;
    }
    /* A stale index that was there when the save began is replaced (the
     * caller found that it no longer describes the input); a file that
     * appeared at path meanwhile is not: the new index is kept under the
     * name the error reports. */
    ret = io_commit_output(tmp, path, existed, &kept, err, errlen);
out:
    if (ret < 0 && !kept) unlink(tmp);
    free(tmp);
    return ret;
}

/* ---- loading: the side file is an input like any other ------------------
 *
 * Every field is checked before it is used: numbers are whole lines of
 * digits that fit their type, the count is bounded by the size of the input
 * it describes (a frame is at least one byte, a y4m frame at least its
 * "FRAME\n") and by what the index file still holds (a key is at least two
 * bytes), keys strictly increase (sorted unique timestamps, or byte offsets
 * inside the input), and nothing follows the last key. */

#define INDEX_LINE 64   /* longer than any valid line */

typedef struct IndexText {
    FILE *f;
    const char *name;
    int64_t line;
    char *err;
    size_t errlen;
} IndexText;

static int bad_index(IndexText *t, const char *why)
{
    return set_error(t->err, t->errlen, OMCTI_ERR_FORMAT, "'%s': not a valid omcti frame index "
                     "(line %lld: %s); delete it and let omcti count again", t->name,
                     (long long)t->line, why);
}

/* The next line, without its newline; -1 at the end or past INDEX_LINE. */
static int next_line(IndexText *t, char *buf)
{
    t->line++;
    if (!fgets(buf, INDEX_LINE, t->f)) return -1;
    size_t n = strlen(buf);
    if (!n || buf[n - 1] != '\n') return -1;
    buf[n - 1] = 0;
    return 0;
}

/* "NAME V1 [V2]": exactly n values after NAME and one space each. */
static int field(IndexText *t, const char *name, int n, int64_t *v1, int64_t *v2, char *word,
                 size_t wordlen)
{
    char line[INDEX_LINE], want[40];
    if (next_line(t, line) < 0) return bad_index(t, "truncated or over-long line");
    const size_t len = (size_t)snprintf(want, sizeof want, "%s ", name);
    if (strncmp(line, want, len)) {
        snprintf(want, sizeof want, "'%s' expected", name);
        return bad_index(t, want);
    }
    char *a = line + len, *b = strchr(a, ' ');
    if ((n == 2) != (b != NULL)) return bad_index(t, "wrong number of values");
    if (b) *b++ = 0;
    if (word) {          /* the first value is a word */
        if (strlen(a) >= wordlen) return bad_index(t, "unknown value");
        memcpy(word, a, strlen(a) + 1);
    } else if (io_parse_i64(a, v1) < 0) {
        return bad_index(t, "not a whole number in range");
    }
    if (b && io_parse_i64(b, v2) < 0) return bad_index(t, "not a whole number in range");
    return 0;
}

/* Parses and checks an index from f (name for messages) into ix; the caller
 * compares ix->file_size and file_mtime with the input. */
static int frame_index_parse(FrameIndex *ix, FILE *f, const char *name, char *err,
                             size_t errlen)
{
    IndexText t = { f, name, 0, err, errlen };
    char line[INDEX_LINE], kind[16];
    int64_t version, stream, keys, dummy;
    int ret;
    memset(ix, 0, sizeof *ix);
    if (next_line(&t, line) < 0 || strncmp(line, "omcti-frame-index ", 18))
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': not an omcti frame index", name);
    if (io_parse_i64(line + 18, &version) < 0 || version < 1 || version > 2)
        return bad_index(&t, "unknown version");
    if ((ret = field(&t, "file", 2, &ix->file_size, &ix->file_mtime, NULL, 0)) < 0) return ret;
    if (ix->file_size < 0) return bad_index(&t, "negative file size");
    if ((ret = field(&t, "kind", 2, &dummy, &stream, kind, sizeof kind)) < 0) return ret;
    if (strcmp(kind, "pts") && strcmp(kind, "offset")) return bad_index(&t, "unknown kind");
    ix->kind = !strcmp(kind, "pts") ? FRAME_INDEX_PTS : FRAME_INDEX_OFFSET;
    if (stream < 0 || stream > 65535) return bad_index(&t, "stream number out of range");
    ix->stream = (int)stream;
    if ((ret = field(&t, "frames", 1, &ix->count, NULL, NULL, 0)) < 0) return ret;
    const int64_t min_frame = ix->kind == FRAME_INDEX_OFFSET ? 6 : 1;
    if (ix->count < 0 || ix->count > ix->file_size / min_frame)
        return bad_index(&t, "more frames than the input has bytes for");
    if ((ret = field(&t, "keys", 1, &keys, NULL, NULL, 0)) < 0) return ret;
    /* 2: none, because two pictures share a timestamp */
    if (keys < 0 || keys > 2) return bad_index(&t, "keys is not 0, 1 or 2");
    if (keys == 2 && ix->kind != FRAME_INDEX_PTS) return bad_index(&t, "keys 2 of a y4m index");
    if (version == 1 && keys == 0)
        return bad_index(&t, "made by an older omcti (remove it: the next run makes it again)");
    ix->repeated = keys == 2;
    if (!keys && ix->kind == FRAME_INDEX_OFFSET) return bad_index(&t, "a y4m index needs keys");
    if (keys) {
        /* What is left of the index file bounds the count before any
         * allocation (a key line is at least 2 bytes). */
        const off_t here = ftello(f);
        off_t end = -1;
        if (here >= 0 && fseeko(f, 0, SEEK_END) == 0) end = ftello(f);
        if (end < 0 || fseeko(f, here, SEEK_SET) < 0)
            return set_error(err, errlen, OMCTI_ERR_IO, "cannot read the frame index '%s': %s",
                             name, strerror(errno ? errno : EIO));
        if (ix->count > (end - here) / 2) return bad_index(&t, "fewer keys than frames");
        int64_t *v = malloc(sizeof *v * (size_t)(ix->count ? ix->count : 1));
        if (!v)
            return set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        if (keys == 1) ix->key = v;
        else ix->times = v;
        for (int64_t k = 0; k < ix->count; k++) {
            if (next_line(&t, line) < 0 || io_parse_i64(line, &v[k]) < 0) {
                ret = bad_index(&t, "a key is missing or not a whole number");
                goto fail;
            }
            /* keys increase; the times of keys 2 may repeat */
            if (k && (keys == 1 ? v[k] <= v[k - 1] : v[k] < v[k - 1])) {
                ret = bad_index(&t, "the keys do not increase");
                goto fail;
            }
            if (ix->kind == FRAME_INDEX_OFFSET ?
                v[k] < 0 || v[k] > ix->file_size - 6 : v[k] == INT64_MIN) {
                ret = bad_index(&t, "a key outside the input");
                goto fail;
            }
        }
    }
    t.line++;
    if (fgetc(f) != EOF) {
        ret = bad_index(&t, "data after the last key");
        goto fail;
    }
    if (ferror(f)) {
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot read the frame index '%s': %s",
                        name, strerror(errno ? errno : EIO));
        goto fail;
    }
    return 0;
fail:
    frame_index_free(ix);
    return ret;
}

int frame_index_load(FrameIndex *ix, const char *path, const char *input, char *err,
                     size_t errlen)
{
    memset(ix, 0, sizeof *ix);
    /* O_NONBLOCK: a FIFO named as the index is refused, not waited on */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        const int e = errno;
        if (fd >= 0) close(fd);
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot open the frame index '%s': %s", path,
                         strerror(e));
    }
    struct stat st;
    int ret = 0;
    if (fstat(fileno(f), &st) < 0)
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot read the frame index '%s': %s", path,
                        strerror(errno));
    else if (!S_ISREG(st.st_mode))
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot read the frame index '%s': %s", path,
                        S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
    else
        ret = frame_index_parse(ix, f, path, err, errlen);
    fclose(f);
    if (ret < 0) return ret;
    int64_t size, mtime;
    if (file_identity(input, &size, &mtime) < 0 || size != ix->file_size ||
        mtime != ix->file_mtime) {
        frame_index_free(ix);
        return set_error(err, errlen, OMCTI_ERR_INVALID, "the frame index '%s' was made for "
                         "another version of '%s' (size or time differs); delete it", path, input);
    }
    return 0;
}
