/* `omcti eval --plot`: the PSNR-Y of every rebuilt frame, one line per
 * method, drawn by gnuplot into a PNG. No name reaches gnuplot as code:
 * gnuplot is started without a shell, its script holds numbers and names
 * reduced to plain characters (plot_text), and the data comes inline. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/cli/cli.h"
#include "src/cli/plot.h"
#include "src/io/io.h"
/* io_check_existing(): the in-place rule of every output, shared, not copied */
#include "src/io/io_internal.h"

/* A name for the plot's title and key, in characters that gnuplot reads as
 * plain text inside a single-quoted string: no quote, backslash, backquote,
 * '@' (macros), control byte or anything else gnuplot might act on. The
 * rest becomes '?'; the names themselves are in the table and the JSON. */
static void plot_text(char *dst, size_t size, const char *src)
{
    size_t n = 0;
    for (; *src && n + 1 < size; src++) {
        const unsigned char c = (unsigned char)*src;
        const int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || strchr(" ._-+/,:=#()[]", c);
        dst[n++] = c && plain ? (char)c : '?';
    }
    dst[n] = 0;
}

/* The file a plot name stands for, as for every output (output_path.c):
 * where the name is a symbolic link to a regular file, its target (written
 * through, the link kept), else the name itself. The temporary file goes
 * beside it: io_commit_output() writes through the link only where it
 * finds the temporary file beside the target, so the two agree. */
static const char *plot_target(const char *plot, char *buf)
{
    struct stat st;
    if (lstat(plot, &st) < 0 || !S_ISLNK(st.st_mode) || stat(plot, &st) < 0 ||
        !S_ISREG(st.st_mode) || !realpath(plot, buf))
        return plot;
    return buf;
}

int plot_open(PlotFile *pf, const char *plot, const char *input, int overwrite)
{
    char err[1024], target[PATH_MAX];
    *pf = (PlotFile){ .fd = -1, .overwrite = overwrite };
    if (!*plot || !strcmp(plot, "-"))
        return cli_error(EXIT_USAGE, "eval: --plot needs a file name (FILE.png)");
    /* The rules of -o: not the input, not a folder, a block device or a
     * socket, not a link to nothing, nothing existing without -y; and
     * whether the name is a FIFO or a character device, written in place
     * (a file renamed over it would replace the node, /dev/null for all). */
    int ret = io_check_output(plot, input, overwrite, err, sizeof err);
    if (ret == 0) ret = io_check_existing(plot, overwrite, &pf->in_place, err, sizeof err);
    if (ret < 0)   /* onto the input: the command line's error, as -o onto it */
        return cli_error(ret == OMCTI_ERR_INVALID ? EXIT_USAGE : EXIT_FAILURE_RUN, "eval: %s", err);
    if (pf->in_place) {
        /* The node is opened only at the end (a FIFO's open waits for its
         * reader, which must not hold up the run), so its permission is
         * checked now. gnuplot writes to an anonymous file (none is left
         * anywhere, none is made in the node's folder, /dev), copied into
         * the node once complete. */
        FILE *f = NULL;
        if (access(plot, W_OK) < 0 || !(f = tmpfile()) || (pf->fd = dup(fileno(f))) < 0) {
            const int e = errno;
            if (f) fclose(f);
            return cli_error(EXIT_FAILURE_RUN, "eval: cannot write the plot '%s': %s", plot,
                             strerror(e));
        }
        fclose(f);
        return 0;
    }
    const char *path = plot_target(plot, target);
    const size_t n = strlen(path) + 32;
    if (!(pf->tmp = malloc(n))) return cli_error(EXIT_FAILURE_RUN, "eval: out of memory");
    errno = ENAMETOOLONG;   /* a name with no room for the temporary's */
    if (io_sibling_name(pf->tmp, n, path, "omcti-XXXXXX", "") < 0 ||
        (pf->fd = mkstemp(pf->tmp)) < 0) {
        const int e = errno;
        free(pf->tmp);
        pf->tmp = NULL;
        return cli_error(EXIT_FAILURE_RUN, "eval: cannot write the plot '%s': %s", plot,
                         strerror(e));
    }
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(pf->fd, 0666 & ~mask);   /* mkstemp's 0600 is still usable */
    return 0;
}

void plot_discard(PlotFile *pf)
{
    if (pf->fd >= 0) close(pf->fd);
    if (pf->tmp) unlink(pf->tmp);
    free(pf->tmp);
    pf->fd = -1;
    pf->tmp = NULL;
}

/* The finished PNG (pf->fd) into the FIFO or device plot, as -o writes
 * one: opened without O_CREAT, so that a node removed meanwhile is not
 * made a file, and written only while it still is a FIFO or a device. A
 * FIFO waits in open() for its reader; Ctrl-C ends the wait (the handler
 * has no SA_RESTART). 0, or the exit code after the error line. */
static int plot_copy_in_place(PlotFile *pf, const char *plot)
{
    const int out = io_open_in_place(plot);
    if (out == -EINTR && cli_interrupted())
        return cli_error(EXIT_INTERRUPTED, "eval: interrupted");
    if (out == -ENOTSUP)
        return cli_error(EXIT_FAILURE_RUN, "eval: '%s' is no longer a FIFO or a device; the "
                         "plot was not written there", plot);
    if (out < 0)
        return cli_error(EXIT_FAILURE_RUN, "eval: cannot write the plot '%s': %s", plot,
                         strerror(-out));
    char buf[1 << 15];
    ssize_t got = 0;
    int e = lseek(pf->fd, 0, SEEK_SET) < 0 ? errno : 0;
    while (!e && (got = read(pf->fd, buf, sizeof buf)) != 0) {
        if (got < 0) {
            e = errno == EINTR && !cli_interrupted() ? 0 : errno;
            continue;
        }
        for (ssize_t off = 0; off < got && !e;) {
            const ssize_t put = write(out, buf + off, (size_t)(got - off));
            if (put >= 0) off += put;
            else if (errno != EINTR || cli_interrupted()) e = errno;
        }
    }
    if (close(out) < 0 && !e && errno != EINTR) e = errno;
    if (e && cli_interrupted()) return cli_error(EXIT_INTERRUPTED, "eval: interrupted");
    if (e)
        return cli_error(EXIT_FAILURE_RUN, "eval: cannot write the plot '%s': %s", plot,
                         strerror(e));
    return 0;
}

/* The finished temporary file into place, by the rules of -o: without -y
 * never over a file that appeared meanwhile (then the plot is kept under
 * its temporary name, which the line gives); with -y over a file, never
 * over a FIFO or a device that appeared at the name meanwhile. 0, or the
 * exit code after the error line. */
static int plot_commit(PlotFile *pf, const char *plot)
{
    char err[1024];
    int in_place = 0, kept = 0;
    if (fsync(pf->fd) < 0 || close(pf->fd) < 0) {
        pf->fd = -1;
        return cli_error(EXIT_FAILURE_RUN, "eval: cannot write the plot '%s': %s", plot,
                         strerror(errno));
    }
    pf->fd = -1;
    if (pf->overwrite && io_check_existing(plot, 1, &in_place, err, sizeof err) < 0)
        return cli_error(EXIT_FAILURE_RUN, "eval: %s", err);
    if (in_place)
        return cli_error(EXIT_FAILURE_RUN, "eval: '%s' became a FIFO or a device during the "
                         "run; the plot was not written there", plot);
    if (io_commit_output(pf->tmp, plot, pf->overwrite, &kept, err, sizeof err) < 0) {
        if (kept) {   /* the line names it: the plot is the user's now */
            free(pf->tmp);
            pf->tmp = NULL;
        }
        return cli_error(EXIT_FAILURE_RUN, "eval: %s", err);
    }
    free(pf->tmp);
    pf->tmp = NULL;
    return 0;
}

/* The last line gnuplot wrote on stderr (kept in f), for the error line. */
static void last_line(FILE *f, char *buf, size_t size)
{
    char line[512];
    buf[0] = 0;
    if (!f) return;
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '^') p++;
        if (*p) snprintf(buf, size, "%s", p);
    }
}

/* gnuplot is started directly (posix_spawnp, no shell): its script comes
 * on a pipe and holds only numbers and plot_text() names; the PNG goes to
 * its stdout, the temporary file. */
int plot_write(PlotFile *pf, const char *plot, const char *input, const char *const *labels,
               const double *const *values, int nseries, int nframes)
{
    int ret = EXIT_FAILURE_RUN, in[2] = { -1, -1 };
    pid_t pid;
    FILE *g = NULL, *gerr = tmpfile();
    posix_spawn_file_actions_t fa;
    char *const argv[] = { "gnuplot", NULL };
    char title[256], why[512];
    if (pipe(in) < 0 || posix_spawn_file_actions_init(&fa) != 0) {
        cli_error(EXIT_FAILURE_RUN, "eval: cannot start gnuplot: %s", strerror(errno));
        goto out;
    }
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, pf->fd, 1);
    posix_spawn_file_actions_adddup2(&fa, gerr ? fileno(gerr) : 2, 2);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    const int e = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    if (e) {
        close(in[1]);
        if (e == ENOENT)
            cli_error(EXIT_FAILURE_RUN, "eval: --plot needs gnuplot, which is not installed "
                      "(apt-get install gnuplot-nox)");
        else
            cli_error(EXIT_FAILURE_RUN, "eval: cannot start gnuplot: %s", strerror(e));
        goto out;
    }
    if (!(g = fdopen(in[1], "w"))) {
        close(in[1]);
        cli_error(EXIT_FAILURE_RUN, "eval: cannot start gnuplot: %s", strerror(errno));
        goto wait;
    }
    plot_text(title, sizeof title, input);
    fprintf(g, "set terminal pngcairo size 1000,560 noenhanced\n");
    fprintf(g, "set title 'PSNR-Y of the rebuilt odd frames: %s'\n", title);
    fprintf(g, "set xlabel 'frame'\nset ylabel 'PSNR-Y (dB)'\nset key outside right\nset grid\n");
    fprintf(g, "$d << EOD\n");
    for (int k = 0; k < nframes; k++) {
        fprintf(g, "%d", 2 * k + 1);
        for (int r = 0; r < nseries; r++)
            fprintf(g, " %.4f", values[r][k]);
        fputc('\n', g);
    }
    fprintf(g, "EOD\nplot ");
    for (int r = 0; r < nseries; r++) {
        char label[256];
        plot_text(label, sizeof label, labels[r]);
        fprintf(g, "%s$d using 1:%d with linespoints title '%s'", r ? ", " : "", r + 2, label);
    }
    fprintf(g, "\n");
    fclose(g);   /* gnuplot reads to the end; a write error shows in its status */
wait:;
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) break;
    struct stat sb;
    last_line(gerr, why, sizeof why);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || fstat(pf->fd, &sb) < 0 || sb.st_size == 0) {
        cli_error(EXIT_FAILURE_RUN, "eval: gnuplot failed writing the plot '%s' (%s)", plot,
                  why[0] ? why : "no message");
        goto out;
    }
    ret = pf->in_place ? plot_copy_in_place(pf, plot) : plot_commit(pf, plot);
out:
    if (gerr) fclose(gerr);
    plot_discard(pf);
    return ret;
}
