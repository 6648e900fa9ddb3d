/* libFuzzer target: the frame-index loader (--index FILE, omcti farm's
 * frames.idx) on mutated side files. A file it accepts must hold what the
 * rest of omcti assumes (a count within the input's size, keys present for
 * y4m and strictly increasing) and survive a save and load unchanged.
 * The parser is static in frame_index.c, so this file includes it. */
#include "src/io/frame_index.c"
#include "tests/fuzz/fuzz_scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f) return 0;
    FrameIndex ix, back;
    char err[1024];
    const int ret = frame_index_parse(&ix, f, "fuzz.idx", err, sizeof err);
    fclose(f);
    if (ret < 0) {
        if (!err[0] || strchr(err, '\n')) abort();   /* one line, saying why */
        return 0;
    }
    if (ix.count < 0 || ix.count > ix.file_size) abort();
    if (ix.kind == FRAME_INDEX_OFFSET && !ix.key) abort();
    for (int64_t k = 0; ix.key && k < ix.count; k++) {
        if (k && ix.key[k] <= ix.key[k - 1]) abort();
        if (ix.kind == FRAME_INDEX_OFFSET && (ix.key[k] < 0 || ix.key[k] >= ix.file_size))
            abort();
    }
    /* keys 2: no keys, every picture's time, sorted */
    if (ix.repeated && (ix.key || !ix.times || ix.kind != FRAME_INDEX_PTS)) abort();
    for (int64_t k = 1; ix.times && k < ix.count; k++)
        if (ix.times[k] < ix.times[k - 1]) abort();
    /* What is saved reads back the same. */
    char path[256];
    snprintf(path, sizeof path, "%s/frames.idx", scratch());
    if (frame_index_save(&ix, path, err, sizeof err) == 0 && (f = fopen(path, "rb"))) {
        if (frame_index_parse(&back, f, path, err, sizeof err) < 0 || back.count != ix.count ||
            back.kind != ix.kind || back.stream != ix.stream || !back.key != !ix.key ||
            back.file_size != ix.file_size || back.file_mtime != ix.file_mtime ||
            (ix.key && memcmp(back.key, ix.key, sizeof *ix.key * (size_t)ix.count)) ||
            back.repeated != ix.repeated || !back.times != !ix.times ||
            (ix.times && memcmp(back.times, ix.times, sizeof *ix.times * (size_t)ix.count)))
            abort();
        fclose(f);
        frame_index_free(&back);
    }
    frame_index_free(&ix);
    return 0;
}
