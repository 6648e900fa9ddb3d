/* What the files of segments share (segment.c: the plan; piece_sum.c: a
 * piece's checksum file; piece_set.c: join's check of the set). */
#ifndef OMCTI_CLI_SEGMENT_INTERNAL_H
#define OMCTI_CLI_SEGMENT_INTERNAL_H

#include <stdint.h>

/* Where segment i of count over n frames starts: floor(i * n / count). */
static inline int64_t split_point(int64_t n, int64_t i, int64_t count)
{
    return (int64_t)((__int128)i * n / count);
}

/* FNV-1a, 64 bits, of the regular file at path (piece_sum.c): 0, or -1
 * with errno set. */
int piece_hash_file(const char *path, int64_t *size, uint64_t *hash);

#endif
