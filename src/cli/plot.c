/* `omcti eval --plot`: the PSNR-Y of every rebuilt frame, one line per
 * method, drawn by gnuplot into a PNG. No name reaches gnuplot as code:
 * gnuplot is started without a shell, its script holds numbers and names
 * reduced to plain characters (plot_text), and the data comes inline. */
#include <errno.h>
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

int plot_open(PlotFile *pf, const char *plot, const char *input)
{
    char err[1024];
    pf->fd = -1;
    if (!*plot || !strcmp(plot, "-"))
        return cli_error(EXIT_USAGE, "eval: --plot needs a file name (FILE.png)");
    if (io_check_output(plot, input, 1, err, sizeof err) < 0)
        return cli_error(EXIT_FAILURE_RUN, "eval: %s", err);
    const char *slash = strrchr(plot, '/');
    const char *base = slash ? slash + 1 : plot;
    const size_t dirlen = (size_t)(base - plot), n = dirlen + strlen(base) + 32;
    if (!(pf->tmp = malloc(n))) return cli_error(EXIT_FAILURE_RUN, "eval: out of memory");
    /* (an over-long name fails in mkstemp with ENAMETOOLONG) */
    snprintf(pf->tmp, n, "%.*s.%.200s.omcti-XXXXXX", (int)dirlen, plot, base);
    if ((pf->fd = mkstemp(pf->tmp)) < 0) {
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
    if (fsync(pf->fd) < 0 || close(pf->fd) < 0) {
        pf->fd = -1;
        cli_error(EXIT_FAILURE_RUN, "eval: cannot write the plot '%s': %s", plot,
                  strerror(errno));
        goto out;
    }
    pf->fd = -1;
    if (rename(pf->tmp, plot) < 0) {
        cli_error(EXIT_FAILURE_RUN, "eval: cannot write the plot '%s': %s", plot,
                  strerror(errno));
        goto out;
    }
    free(pf->tmp);
    pf->tmp = NULL;
    ret = 0;
out:
    if (gerr) fclose(gerr);
    plot_discard(pf);
    return ret;
}
