/* libFuzzer target: `omcti join` on mutated pieces. The input is a bundle,
 *   omcti-join-bundle EXT [fix] K K K ...\n   (EXT y4m or mkv; the arguments: slot numbers)
 * then up to four slots, each "PIECE.sum" and "PIECE" (a part that is just
 * "-" leaves the file out), the parts separated by SEP. The checksum files
 * are validated and the set checked (piece_set_check, what cli/join.c runs)
 * and, when accepted, the pieces joined (io_join: y4m concatenation, or the
 * Matroska stream copy). With "fix" the size and fnv1a64 lines of each
 * checksum file are first made to match its (mutated) piece, as anyone who
 * edits a piece can do, so that mutated pieces reach the join itself.
 * Seeds: corpus/join, real --segment pieces (make_corpus.sh). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cli/segment.h"
#include "src/io/io.h"
#include "tests/fuzz/fuzz_scratch.h"

#define SEP "\n--8<--\n"
#define SLOTS 4
#define MAX_ARGS 8

/* The checksum file sum[0..len) with its size and fnv1a64 lines replaced
 * by those of piece[0..plen) (malloc'd), or NULL when it has none. */
static char *fix_sum(const char *sum, size_t len, const char *piece, size_t plen)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < plen; i++) {
        h ^= (unsigned char)piece[i];
        h *= 1099511628211ULL;
    }
    char *out = malloc(len + 64), *o = out;
    if (!out) return NULL;
    int found = 0;
    for (const char *l = sum, *e = sum + len; l < e;) {
        const char *nl = memchr(l, '\n', (size_t)(e - l));
        const size_t n = nl ? (size_t)(nl - l) + 1 : (size_t)(e - l);
        if (!(found & 1) && n >= 5 && !memcmp(l, "size ", 5)) {
            o += sprintf(o, "size %zu\n", plen);
            found |= 1;
        } else if (!(found & 2) && n >= 8 && !memcmp(l, "fnv1a64 ", 8)) {
            o += sprintf(o, "fnv1a64 %016llx\n", (unsigned long long)h);
            found |= 2;
        } else {
            memcpy(o, l, n);
            o += n;
        }
        l += n;   /* each replaced once: at most 2 x 26 bytes longer */
    }
    *o = 0;
    if (found != 3 || memchr(out, 0, (size_t)(o - out))) {
        free(out);
        return NULL;
    }
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 20 || size > (1 << 20)) return 0;
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = 0;
    char *nl = memchr(buf, '\n', size);
    char ext[8];
    int order[MAX_ARGS], n = 0, consumed = 0;
    if (!nl || sscanf(buf, "omcti-join-bundle %7s %n", ext, &consumed) != 1 ||
        (strcmp(ext, "y4m") && strcmp(ext, "mkv"))) {
        free(buf);
        return 0;
    }
    *nl = 0;
    int fix = 0;
    for (char *save = NULL, *t = strtok_r(buf + consumed, " ", &save); t && n < MAX_ARGS;
         t = strtok_r(NULL, " ", &save)) {
        if (t[0] >= '0' && t[0] < '0' + SLOTS && !t[1]) order[n++] = t[0] - '0';
        else if (!strcmp(t, "fix")) fix = 1;
    }
    /* The parts, in the bytes after the header line (may hold NULs). */
    const char *p = nl + 1, *end = buf + size;
    char path[2 * SLOTS][256], name[32];
    int have[2 * SLOTS] = { 0 };
    const char *part_at[2 * SLOTS];
    size_t part_len[2 * SLOTS];
    int nparts = 0;
    for (; nparts < 2 * SLOTS && p <= end; nparts++) {
        const char *q = memmem(p, (size_t)(end - p), SEP, strlen(SEP));
        part_at[nparts] = p;
        part_len[nparts] = q ? (size_t)(q - p) : (size_t)(end - p);
        if (!q) {
            nparts++;
            break;
        }
        p = q + strlen(SEP);
    }
    char *fixed = NULL;
    for (int part = 0; part < nparts; part++) {
        const int slot = part / 2, is_sum = part % 2 == 0;
        const char *at = part_at[part];
        size_t len = part_len[part];
        if (len == 1 && *at == '-') continue;
        if (fix && is_sum && part + 1 < nparts && (fixed = fix_sum(at, len, part_at[part + 1],
                                                                   part_len[part + 1]))) {
            at = fixed;
            len = strlen(fixed);
        }
        snprintf(name, sizeof name, "p%d.%s%s", slot, ext, is_sum ? ".sum" : "");
        have[part] = scratch_write(name, at, len, path[part], sizeof path[part]) == 0;
        free(fixed);
        fixed = NULL;
    }
    const char *args[MAX_ARGS], *sorted[MAX_ARGS];
    char piece[SLOTS][256], out[256], err[1024];
    for (int s = 0; s < SLOTS; s++) snprintf(piece[s], sizeof piece[s], "%s/p%d.%s", scratch(), s, ext);
    for (int k = 0; k < n; k++) args[k] = piece[order[k]];
    snprintf(out, sizeof out, "%s/out.%s", scratch(), ext);
    if (n > 0) {
        int64_t frames = 0;
        err[0] = 0;
        VideoOrigin origin = { 0 };
        int ret = piece_set_check(args, n, sorted, &frames, &origin, NULL, err, sizeof err);
        if (ret == 0)
            ret = io_join(out, sorted, n, NULL, &origin, 1, 1, NULL, &frames, err, sizeof err);
        if (ret < 0 && (!err[0] || strchr(err, '\n'))) abort();   /* one line, saying why */
        unlink(out);
    }
    for (int part = 0; part < 2 * SLOTS; part++)
        if (have[part]) unlink(path[part]);
    free(buf);
    return 0;
}
