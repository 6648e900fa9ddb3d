#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filters/scenecut.h"
#include "src/common.h"
#include "src/cli/segment.h"

int segment_overlap(void)
{
    return SCD_HISTORY + 1;
}

static int64_t split_point(int64_t n, int64_t i, int64_t count)
{
    return (int64_t)((__int128)i * n / count);
}

static void fill(const Timeline *tl, int64_t n, SegmentRange *r)
{
    r->out_first = timeline_output_count(tl, r->first);
    r->out_end = timeline_output_count(tl, r->end);
    const int64_t from = r->first - segment_overlap();
    r->read_from = from > 0 ? from : 0;
    r->read_to = r->end < n ? r->end + 1 : n;
}

int segment_range(const Timeline *tl, int64_t n, int i, int count, SegmentRange *r)
{
    if (n < 1 || count < 1 || i < 0 || i >= count) return -1;
    r->first = split_point(n, i, count);
    r->end = split_point(n, (int64_t)i + 1, count);
    fill(tl, n, r);
    return 0;
}

void segment_split(const Timeline *tl, int64_t n, const SegmentRange *whole, int k, int K,
                   SegmentRange *r)
{
    const int64_t len = whole->end - whole->first;
    r->first = whole->first + split_point(len, k, K);
    r->end = whole->first + split_point(len, (int64_t)k + 1, K);
    fill(tl, n, r);
}

int segment_check(const Timeline *tl, int64_t n, int count, const char *input, char *err,
                  size_t errlen)
{
    SegmentRange r;
    for (int i = 0; i < count; i++) {
        if (segment_range(tl, n, i, count, &r) < 0 || r.out_first == r.out_end) {
            /* The largest count that works: halve until it does. */
            int ok = count;
            do {
                ok /= 2;
                int good = ok > 0;
                for (int j = 0; good && j < ok; j++)
                    good = segment_range(tl, n, j, ok, &r) == 0 && r.out_first < r.out_end;
                if (good) break;
            } while (ok > 1);
            return set_error(err, errlen, OMCTI_ERR_INVALID,
                             "'%s': %d segments of %lld input frames leave segment %d without "
                             "output frames; use at most %d segments", input, count,
                             (long long)n, i, ok > 0 ? ok : 1);
        }
    }
    return 0;
}

void segment_options_key(const CliOptions *o, int64_t n, char *buf, size_t len)
{
    const OmctiSettings *s = &o->settings;
    char rate[64];
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
    snprintf(buf, len, "segment=%d/%d frames=%lld rate=%s method=%s search=%s block=%d range=%d "
             "scd=%d scdthr=%.6g codec=%s crf=%d lossless=%d input=%s:%lld:%lld",
             o->seg_index, o->seg_count, (long long)n, rate, omcti_method_name(s->method),
             omcti_search_name(s->search), s->block, s->range, (int)s->scd, s->scd_threshold,
             o->codec ? o->codec : "-", o->crf, o->lossless, in, size, mt);
}

void piece_sum_path(const char *piece, char *buf, size_t len)
{
    snprintf(buf, len, "%s.sum", piece);
}

/* FNV-1a, 64 bits: no dependency, fast enough (about 1 GB/s) next to the
 * conversion, and only meant to catch a piece cut short or rewritten. */
static int hash_file(const char *path, int64_t *size, uint64_t *hash)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    static const size_t bufsize = 1 << 20;
    unsigned char *buf = malloc(bufsize);
    if (!buf) {
        close(fd);
        return -1;
    }
    uint64_t h = 1469598103934665603ULL;
    int64_t total = 0;
    ssize_t got;
    while ((got = read(fd, buf, bufsize)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            h ^= buf[i];
            h *= 1099511628211ULL;
        }
        total += got;
    }
    free(buf);
    close(fd);
    if (got < 0) return -1;
    *size = total;
    *hash = h;
    return 0;
}

int piece_sum_write(const char *piece, const char *key, char *err, size_t errlen)
{
    int64_t size;
    uint64_t hash;
    char path[PATH_MAX + 8], tmp[PATH_MAX + 32];
    if (hash_file(piece, &size, &hash) < 0)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot read '%s': %s", piece,
                         strerror(errno));
    piece_sum_path(piece, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path,
                         strerror(errno));
    fprintf(f, "omcti-piece 1\nsize %" PRId64 "\nfnv1a64 %016" PRIx64 "\nkey %s\n", size, hash,
            key);
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) < 0) {
        unlink(tmp);
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path,
                         strerror(errno ? errno : EIO));
    }
    return 0;
}

int piece_sum_check(const char *piece, const char *key, int full_check)
{
    char path[PATH_MAX + 8];
    piece_sum_path(piece, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[8192], want_key[8192] = "";
    int64_t size = -1;
    uint64_t hash = 0;
    int version = 0, fields = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (sscanf(line, "omcti-piece %d", &version) == 1) fields |= 1;
        else if (sscanf(line, "size %" SCNd64, &size) == 1) fields |= 2;
        else if (sscanf(line, "fnv1a64 %" SCNx64, &hash) == 1) fields |= 4;
        else if (!strncmp(line, "key ", 4)) {
            snprintf(want_key, sizeof want_key, "%s", line + 4);
            fields |= 8;
        }
    }
    fclose(f);
    if (fields != 15 || version != 1 || strcmp(want_key, key)) return 0;
    struct stat st;
    if (stat(piece, &st) < 0 || st.st_size != size) return 0;
    if (!full_check) return 1;
    int64_t s2;
    uint64_t h2;
    return hash_file(piece, &s2, &h2) == 0 && s2 == size && h2 == hash;
}
