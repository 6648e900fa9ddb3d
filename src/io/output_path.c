/* The rules every output obeys, by name: never over an existing file
 * without -y, never over the input, never onto a directory, a block device
 * or a socket (a FIFO or a character device is written in place, like a
 * pipe); written to a temporary file beside the target (through a
 * symbolic link to its target) and renamed into place only when everything
 * succeeded, never over a file that appeared meanwhile without -y. And
 * names shown in messages: every byte that is not printable UTF-8 as \xNN,
 * so that a hostile name cannot drive the terminal. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common.h"
#include "src/io/io_internal.h"

int io_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) < 0 || stat(b, &sb) < 0) return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int io_fd_is_file(int fd, const char *path)
{
    struct stat so, sp;
    if (fstat(fd, &so) < 0 || !S_ISREG(so.st_mode) || stat(path, &sp) < 0)
        return 0;
    return so.st_dev == sp.st_dev && so.st_ino == sp.st_ino;
}

/* NAME_MAX of the usual filesystems: a longer component is refused. */
#define IO_NAME_MAX 255

int io_sibling_name(char *out, size_t size, const char *path, const char *tag,
                    const char *ext)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const size_t dirlen = (size_t)(base - path);
    size_t stem = strlen(base) - strlen(ext);
    /* ".STEM.TAG EXT" must stay one legal name: shorten the stem (at a
     * character boundary), never the part that makes the name unique. */
    const size_t fixed = 2 + strlen(tag) + strlen(ext);
    if (fixed >= IO_NAME_MAX) return -1;
    if (stem > IO_NAME_MAX - fixed) {
        stem = IO_NAME_MAX - fixed;
        while (stem > 0 && ((unsigned char)base[stem] & 0xc0) == 0x80) stem--;
    }
    int n = snprintf(out, size, "%.*s.%.*s.%s%s", (int)dirlen, path, (int)stem, base, tag, ext);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* The file an output name stands for: where the name is a symbolic link
 * to a regular file, its target (written through the link, as FFmpeg
 * does, and the link kept), else the name itself. */
static const char *write_target(const char *path, char *buf, size_t size)
{
    struct stat st;
    if (size < PATH_MAX || lstat(path, &st) < 0 || !S_ISLNK(st.st_mode) || stat(path, &st) < 0 ||
        !S_ISREG(st.st_mode) || !realpath(path, buf))
        return path;
    return buf;
}

/* A fresh, empty file beside path keeping its extension (when short), so
 * that the final rename never crosses a filesystem; the name stays within
 * NAME_MAX however long the target's is. */
char *io_make_temp_path(const char *name, char *err, size_t errlen)
{
    char target[PATH_MAX];
    const char *path = write_target(name, target, sizeof target);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    const char *ext = dot && dot != base && strlen(dot) <= 16 ? dot : "";
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        set_error(err, errlen, OMCTI_ERR_NOMEM, "out of memory");
        return NULL;
    }
    int fd = -1;
    errno = ENAMETOOLONG;
    if (io_sibling_name(tmp, n, path, "omcti-XXXXXX", ext) == 0)
        fd = mkstemps(tmp, (int)strlen(ext));
    if (fd < 0) {
        set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", name, strerror(errno));
        free(tmp);
        return NULL;
    }
    /* mkstemps makes the file 0600; the output should get the usual
     * permissions of a new file. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);   /* on failure 0600 is still usable */
    close(fd);
    return tmp;
}

/* Without overwrite the name must still be free at the end: a file that
 * appeared during the run (another run, the user) is never replaced. The
 * kernel checks and renames in one step (RENAME_NOREPLACE); filesystems
 * without it get link() + unlink(), which fails on an existing name too;
 * the last resort (no hard links, e.g. FAT) reserves the name with
 * O_EXCL and renames over that empty file of ours. */
static int move_no_replace(const char *tmp, const char *path)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EOPNOTSUPP)
        return -errno;
#endif
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != ENOSYS)
        return -errno;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return -errno;
    close(fd);
    return rename(tmp, path) < 0 ? -errno : 0;
}

int io_commit_output(const char *tmp, const char *path, int overwrite, int *kept, char *err,
                     size_t errlen)
{
    *kept = 0;
    /* Onto the link's target only where the temporary file was made beside
     * it (a link that is still the one of the start); a link that appeared
     * at the name during the run is replaced itself. */
    char buf[PATH_MAX];
    const char *target = write_target(path, buf, sizeof buf);
    const char *ts = strrchr(tmp, '/'), *gs = strrchr(target, '/');
    if (target != path &&
        (!ts || !gs || ts - tmp != gs - target || memcmp(tmp, target, (size_t)(ts - tmp))))
        target = path;
    int e = overwrite ? (rename(tmp, target) < 0 ? -errno : 0) : move_no_replace(tmp, target);
    if (e == -EEXIST) {
        *kept = 1;
        return set_error(err, errlen, OMCTI_ERR_IO, "output '%s' appeared during the run and "
                         "was not replaced (use -y to overwrite); the result is kept as '%s'",
                         path, tmp);
    }
    if (e < 0)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s", path,
                         strerror(-e));
    return 0;
}

/* One UTF-8 character at s (at most n bytes): its length when it is valid
 * and printable (no C1 control), else 0. */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf5 || !len || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (s[0] == 0xc2 && s[1] < 0xa0) return 0;                 /* U+0080..U+009F */
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xed && s[1] >= 0xa0) || (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;                                              /* overlong, surrogate */
    return len;
}

const char *io_printable(const char *s, char *buf, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), o = 0;
    if (!size) return buf;
    for (size_t i = 0; i < n;) {
        size_t len = p[i] >= 0x20 && p[i] < 0x7f ? 1 : p[i] >= 0x80 ? printable_utf8(p + i, n - i)
                                                                    : 0;
        if (len) {
            if (o + len >= size) break;
            memcpy(buf + o, p + i, len);
            o += len;
            i += len;
        } else {
            if (o + 4 >= size) break;
            snprintf(buf + o, 5, "\\x%02x", p[i]);
            o += 4;
            i++;
        }
    }
    buf[o] = 0;
    return buf;
}

/* A decimal int64 (optional '-', digits only) filling all of s. */
int io_parse_i64(const char *s, int64_t *v)
{
    const char *d = s + (*s == '-');
    if (*d < '0' || *d > '9') return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end) return -1;
    *v = x;
    return 0;
}

void io_escape_message(char *msg, size_t size)
{
    /* Escaped whole (\xNN is 4 bytes for 1), then its middle gives way
     * where it no longer fits: the end says why. */
    char shown[4 * 1024 + 1];
    if (!msg || !size) return;
    io_printable(msg, shown, sizeof shown);
    str_elide_middle(msg, size, shown, strlen(shown));
}

int io_check_output_rate(const char *path, Rational fps, char *err, size_t errlen)
{
    /* Every container omcti writes (y4m included, and omcti's own reader)
     * keeps a rate as two 31-bit terms. */
    const Rational r = fps.num > 0 && fps.den > 0 ? rational_make(fps.num, fps.den) : fps;
    if (fps.num <= 0 || fps.den <= 0 || r.num > INT_MAX || r.den > INT_MAX) {
        set_error(err, errlen, OMCTI_ERR_INVALID,
                  "'%s': the frame rate %lld/%lld cannot be stored exactly", path,
                  (long long)fps.num, (long long)fps.den);
        io_escape_message(err, errlen);
        return OMCTI_ERR_INVALID;
    }
    return 0;
}

/* What stands under an output's name: nothing, or a file that -y lets us
 * replace; a FIFO or a character device (/dev/null, a terminal) is
 * written in place like a pipe (*in_place = 1: a temporary file renamed
 * over it would replace the node with a regular file). */
int io_check_existing(const char *path, int overwrite, int *in_place, char *err,
                      size_t errlen)
{
    struct stat st;
    *in_place = 0;
    /* A link to nothing: FFmpeg would create its target, wherever it
     * points; omcti asks for the name of the file to write instead. */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) < 0)
        return set_error(err, errlen, OMCTI_ERR_IO, "output '%s' is a symbolic link to a "
                         "missing file; name the file to write itself", path);
    if (stat(path, &st) < 0)
        return 0;
    if (S_ISDIR(st.st_mode))
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': it is a directory", path);
    /* A block device or a socket is no place for a video. */
    if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': it is a %s, not a file",
                         path, S_ISBLK(st.st_mode) ? "block device" : "socket");
    if (!overwrite)
        return set_error(err, errlen, OMCTI_ERR_IO,
                         "output '%s' already exists (use -y to overwrite)", path);
    *in_place = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode);
    return 0;
}

int io_open_in_place(const char *path)
{
    const int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
        close(fd);
        return -ENOTSUP;
    }
    return fd;
}

int io_output_in_place(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
}

static int check_output(const char *path, const char *other, int overwrite, char *err,
                        size_t errlen)
{
    if (other && strcmp(other, "-") && (io_same_file(path, other) || !strcmp(path, other)))
        return set_error(err, errlen, OMCTI_ERR_INVALID,
                         "output '%s' is also an input ('%s'); choose another name", path, other);
    int in_place;
    return io_check_existing(path, overwrite, &in_place, err, errlen);
}

int io_check_output(const char *path, const char *other, int overwrite, char *err,
                    size_t errlen)
{
    int ret = check_output(path, other, overwrite, err, errlen);
    if (ret < 0) io_escape_message(err, errlen);
    return ret;
}

int io_check_output_folder(const char *path, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return 0;
    char dir[PATH_MAX];
    const size_t n = slash == path ? 1 : (size_t)(slash - path);
    char name[1024];
    if (n >= sizeof dir)
        return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s",
                         io_printable(path, name, sizeof name), strerror(ENAMETOOLONG));
    memcpy(dir, path, n);
    dir[n] = 0;
    struct stat st;
    int e = 0;
    if (stat(dir, &st) < 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (access(dir, W_OK | X_OK) < 0)
        e = errno;
    if (!e)
        return 0;
    return set_error(err, errlen, OMCTI_ERR_IO, "cannot write '%s': %s",
                     io_printable(path, name, sizeof name), strerror(e));
}

int io_check_rereadable(const char *path, const char *what, char *err, size_t errlen)
{
    struct stat st;
    if (strcmp(path, "-") == 0 || stat(path, &st) < 0)
        return 0;
    if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode) && !S_ISCHR(st.st_mode))
        return 0;
    char name[1024];
    return set_error(err, errlen, OMCTI_ERR_INVALID,
                     "'%s': %s needs an input file it can seek in, not %s (convert it in one "
                     "run)", io_printable(path, name, sizeof name), what,
                     S_ISFIFO(st.st_mode) ? "a pipe" : S_ISSOCK(st.st_mode) ? "a socket"
                                                                            : "a device");
}
