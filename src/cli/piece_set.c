/* The whole set of pieces, for join (segment.h: piece_set_check()). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common.h"
#include "src/cli/segment.h"
#include "src/cli/segment_internal.h"
#include "src/io/io.h"

static int by_index(const void *a, const void *b)
{
    const PieceSum *x = *(const PieceSum *const *)a, *y = *(const PieceSum *const *)b;
    return (x->index > y->index) - (x->index < y->index);
}

static int same_origin(VideoOrigin a, VideoOrigin b)
{
    return a.pts == b.pts && a.time_base.num == b.time_base.num &&
           a.time_base.den == b.time_base.den;
}

int piece_set_check(const char *const *pieces, int n, const char **sorted, int64_t *frames,
                    VideoOrigin *origin, const char *source, char *err, size_t errlen)
{
    PieceSum *ps = calloc((size_t)n, sizeof *ps);
    PieceSum **order = calloc((size_t)n, sizeof *order);
    int ret = 0;
    if (!ps || !order) {
        ret = set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int k = 0; k < n && ret == 0; k++) {
        PieceSum *p = &ps[k];
        if ((ret = piece_sum_read(pieces[k], p, err, errlen)) < 0) break;
        p->name = pieces[k];
        order[k] = p;
        if (p->count != ps[0].count || p->src_size != ps[0].src_size ||
            p->src_mtime != ps[0].src_mtime || p->src_frames != ps[0].src_frames ||
            p->options != ps[0].options || !same_origin(p->origin, ps[0].origin))
            ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "join: '%s' is not a piece of the "
                            "conversion that '%s' is of (another input, options or number of "
                            "segments)", pieces[k], pieces[0]);
    }
    if (ret < 0) goto out;
    qsort(order, (size_t)n, sizeof *order, by_index);
    for (int k = 0; k < n; k++) {
        if (k && order[k]->index == order[k - 1]->index) {
            ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "join: '%s' and '%s' are both piece "
                            "%d of %d", order[k - 1]->name, order[k]->name, order[k]->index,
                            order[k]->count);
            goto out;
        }
    }
    for (int k = 0, want = 0; want < ps[0].count; want++) {
        if (k < n && order[k]->index == want) {
            k++;
            continue;
        }
        ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "join: piece %d of %d is missing (%d "
                        "given; the pieces of '%s' are numbered 0 to %d)", want, ps[0].count, n,
                        pieces[0], ps[0].count - 1);
        goto out;
    }
    /* Each piece is what was written: nothing cut short or replaced. */
    int64_t total = 0;
    for (int k = 0; k < n; k++) {
        int64_t size;
        uint64_t hash;
        if (piece_hash_file(order[k]->name, &size, &hash) < 0) {
            ret = set_error(err, errlen, OMCTI_ERR_IO, "cannot read '%s': %s", order[k]->name,
                            strerror(errno));
            goto out;
        }
        if (size != order[k]->size || hash != order[k]->hash) {
            ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "join: '%s' is not the piece its "
                            "checksum file describes (%s since it was written); convert "
                            "segment %d/%d again", order[k]->name, size != order[k]->size ?
                            "cut short or grown" : "changed", order[k]->index, order[k]->count);
            goto out;
        }
        sorted[k] = order[k]->name;
        total += order[k]->frames;
    }
    struct stat st;
    if (source && stat(source, &st) == 0 && S_ISREG(st.st_mode) &&
        (int64_t)st.st_size != ps[0].src_size) {
        char name[1024];
        ret = set_error(err, errlen, OMCTI_ERR_FORMAT, "join: '%s' is not the input the pieces "
                        "were made from (%lld bytes; theirs had %lld): --audio-from takes "
                        "that input", io_printable(source, name, sizeof name),
                        (long long)st.st_size, (long long)ps[0].src_size);
        goto out;
    }
    if (frames) *frames = total;
    if (origin) *origin = ps[0].origin;
out:
    free(ps);
    free(order);
    return ret;
}
