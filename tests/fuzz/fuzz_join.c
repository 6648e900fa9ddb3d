/* libFuzzer target: `omcti join` on mutated pieces. The input is a bundle,
 *   omcti-join-bundle EXT K K K ...\n     (EXT y4m or mkv; the arguments: slot numbers)
 * then up to four slots, each "PIECE.sum" and "PIECE" (a part that is just
 * "-" leaves the file out), the parts separated by SEP. The checksum files
 * are validated and the set checked (piece_set_check, what cli/join.c runs)
 * and, when accepted, the pieces joined (io_join: y4m concatenation, or the
 * Matroska stream copy). Seeds: corpus/join, real --segment pieces
 * (make_corpus.sh). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cli/segment.h"
#include "src/io/io.h"
#include "tests/fuzz/fuzz_scratch.h"

#define SEP "\n--8<--\n"
#define SLOTS 4
#define MAX_ARGS 8

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
    for (char *save = NULL, *t = strtok_r(buf + consumed, " ", &save); t && n < MAX_ARGS;
         t = strtok_r(NULL, " ", &save))
        if (t[0] >= '0' && t[0] < '0' + SLOTS && !t[1]) order[n++] = t[0] - '0';
    /* The parts, in the bytes after the header line (may hold NULs). */
    const char *p = nl + 1, *end = buf + size;
    char path[2 * SLOTS][256], name[32];
    int have[2 * SLOTS] = { 0 };
    for (int part = 0; part < 2 * SLOTS && p <= end; part++) {
        const char *q = memmem(p, (size_t)(end - p), SEP, strlen(SEP));
        const size_t len = q ? (size_t)(q - p) : (size_t)(end - p);
        const int slot = part / 2, is_sum = part % 2 == 0;
        snprintf(name, sizeof name, "p%d.%s%s", slot, ext, is_sum ? ".sum" : "");
        if (!(len == 1 && *p == '-') &&
            scratch_write(name, p, len, path[part], sizeof path[part]) == 0)
            have[part] = 1;
        if (!q) break;
        p = q + strlen(SEP);
    }
    const char *args[MAX_ARGS], *sorted[MAX_ARGS];
    char piece[SLOTS][256], out[256], err[1024];
    for (int s = 0; s < SLOTS; s++) snprintf(piece[s], sizeof piece[s], "%s/p%d.%s", scratch(), s, ext);
    for (int k = 0; k < n; k++) args[k] = piece[order[k]];
    snprintf(out, sizeof out, "%s/out.%s", scratch(), ext);
    if (n > 0) {
        int64_t frames = 0;
        err[0] = 0;
        int ret = piece_set_check(args, n, sorted, &frames, err, sizeof err);
        if (ret == 0)
            ret = io_join(out, sorted, n, NULL, 1, 1, &frames, err, sizeof err);
        if (ret < 0 && (!err[0] || strchr(err, '\n'))) abort();   /* one line, saying why */
        unlink(out);
    }
    for (int part = 0; part < 2 * SLOTS; part++)
        if (have[part]) unlink(path[part]);
    free(buf);
    return 0;
}
