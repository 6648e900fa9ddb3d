/* The frame index of a file (io.h): built by the back ends, saved as text so
 * that a cluster's tasks share one pass over the input, and checked against
 * the file on load. Format:
 *   omcti-frame-index 1
 *   file SIZE MTIME_NS
 *   kind pts|offset STREAM
 *   frames N
 *   keys 0|1
 *   N lines, one key each (when keys is 1) */
#include <errno.h>
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
    memset(ix, 0, sizeof *ix);
}

int frame_index_identity(const char *path, int64_t *size, int64_t *mtime)
{
    return file_identity(path, size, mtime);
}

int frame_index_save(const FrameIndex *ix, const char *path, char *err, size_t errlen)
{
    char *tmp = io_make_temp_path(path, err, errlen);
    if (!tmp) return OMCTI_ERR_IO;
    FILE *f = fopen(tmp, "w");
    int ret = 0;
    if (!f) {
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        goto out;
    }
    fprintf(f, "omcti-frame-index 1\nfile %" PRId64 " %" PRId64 "\nkind %s %d\nframes %" PRId64
            "\nkeys %d\n", ix->file_size, ix->file_mtime,
            ix->kind == FRAME_INDEX_PTS ? "pts" : "offset", ix->stream, ix->count, ix->key != NULL);
    if (ix->key)
        for (int64_t k = 0; k < ix->count; k++)
            fprintf(f, "%" PRId64 "\n", ix->key[k]);
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) < 0)
        ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path,
                        strerror(errno ? errno : EIO));
out:
    if (ret < 0) unlink(tmp);
    free(tmp);
    return ret;
}

int frame_index_load(FrameIndex *ix, const char *path, const char *input, char *err,
                     size_t errlen)
{
    memset(ix, 0, sizeof *ix);
    FILE *f = fopen(path, "r");
    if (!f)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot open the frame index '%s': %s", path,
                         strerror(errno));
    char kind[16] = "";
    int keys = 0, version = 0;
    int ret = 0;
    if (fscanf(f, "omcti-frame-index %d file %" SCNd64 " %" SCNd64 " kind %15s %d frames %" SCNd64
               " keys %d", &version, &ix->file_size, &ix->file_mtime, kind, &ix->stream,
               &ix->count, &keys) != 7 || version != 1 || ix->count < 0 ||
        (strcmp(kind, "pts") && strcmp(kind, "offset"))) {
        ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': not an omcti frame index", path);
        goto out;
    }
    ix->kind = !strcmp(kind, "pts") ? FRAME_INDEX_PTS : FRAME_INDEX_OFFSET;
    int64_t size, mtime;
    if (file_identity(input, &size, &mtime) < 0 || size != ix->file_size ||
        mtime != ix->file_mtime) {
        ret = set_error(err, errlen, OMCTI_ERR_INVALID, "the frame index '%s' was made for "
                        "another version of '%s' (size or time differs); delete it", path, input);
        goto out;
    }
    if (keys) {
        if (!(ix->key = malloc(sizeof *ix->key * (size_t)(ix->count ? ix->count : 1)))) {
            ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
            goto out;
        }
        for (int64_t k = 0; k < ix->count; k++)
            if (fscanf(f, "%" SCNd64, &ix->key[k]) != 1) {
                ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the frame index is "
                                "truncated", path);
                goto out;
            }
    }
out:
    fclose(f);
    if (ret < 0) frame_index_free(ix);
    return ret;
}
