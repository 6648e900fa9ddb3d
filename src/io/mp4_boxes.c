/* Whether an MP4/MOV file ends inside one of its top-level boxes: a
 * download or copy cut short. FFmpeg's reader opens such a file when the
 * part it needs first is there and then names only what it misses (no video
 * stream, a codec it does not know, a first picture that does not decode);
 * the boxes' own sizes say what happened. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/io/io_internal.h"

static uint64_t be32(const unsigned char *b)
{
    return (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
}

/* The types a file of the family starts with (ISO/IEC 14496-12 and
 * QuickTime: a fast-start file begins with moov, an old QuickTime file
 * with free, wide or mdat), then the other top-level boxes it writes: a
 * file is called cut short only inside one of these (other bytes after a
 * whole file, a tag or text appended, are not judged). */
static const char *const box_types[] = { "ftyp", "moov", "mdat", "free", "skip", "wide",
                                         "pnot", "styp", /* first: 8 */
                                         "moof", "mfra", "uuid", "meta", "sidx", "pdin",
                                         "udta", "emsg", "prft", "ssix" };
enum { FIRST_TYPES = 8 };

/* Whether t is one of the first n box types above. */
static int box_type_in(const unsigned char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!memcmp(t, box_types[i], 4))
            return 1;
    return 0;
}

int io_mp4_cut_short(const char *path, IoCutShort *cut)
{
    memset(cut, 0, sizeof *cut);
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat sb;
    int found = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        const uint64_t size = (uint64_t)sb.st_size;
        uint64_t pos = 0;
        /* a file of the family has a few top-level boxes (a fragmented one
         * two per fragment): the walk stops long before a damaged one
         * could keep it busy */
        for (int n = 0; n < 100000 && pos < size; n++) {
            unsigned char h[16];
            const ssize_t got = pread(fd, h, sizeof h, (off_t)pos);
            /* a box header cut short names no type: not judged */
            if (got < 8 ||
                !box_type_in(h + 4, n == 0 ? FIRST_TYPES : sizeof box_types / sizeof box_types[0]))
                break;
            uint64_t len = be32(h), head = 8;
            if (len == 1) {             /* a 64-bit size after the type */
                if (got < 16)
                    break;
                len = be32(h + 8) << 32 | be32(h + 12);
                head = 16;
            } else if (len == 0) {      /* runs to the end of the file */
                break;
            }
            /* damaged, not cut: not judged here */
            if (len < head || len > (uint64_t)INT64_MAX - pos)
                break;
            if (len > size - pos) {
                found = 1;
                memcpy(cut->type, h + 4, 4);
                cut->box_end = pos + len;
                break;
            }
            pos += len;
        }
        cut->file_size = size;
    }
    close(fd);
    return found;
}
