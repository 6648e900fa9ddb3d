/* The omcti command. OpenMP runtimes spin-wait between parallel regions
 * (libgomp: some 300,000 turns, about a millisecond) before a thread
 * sleeps. Those spins take the core from the program's own read-ahead and
 * write-behind threads and, on a shared machine, from everyone else; a
 * thread preempted meanwhile holds up the others. On the 2-core machine the
 * 1080p conversion took 2.1x as long beside one other busy process
 * (docs/benchmarks.md). The runtime reads its wait policy from the
 * environment in its initialiser, before main() runs, and has no call to
 * change it; the library reads no environment. So this small program sets
 * OMP_WAIT_POLICY=passive, unless the user chose a policy (and libsvtav1's
 * log level, below), and runs the program itself, omcti-bin, from its own
 * folder. (Running the program again from its own main() would load its
 * 130-odd shared libraries twice: 70 ms a run.) It links nothing but the C
 * library. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A path as one line: control bytes as \xNN (the rule of every message). */
static void print_path(const char *s)
{
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            fprintf(stderr, "\\x%02x", c);
        else
            fputc(c, stderr);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
#if OMCTI_HAVE_OPENMP
    if (!getenv("OMP_WAIT_POLICY"))
        setenv("OMP_WAIT_POLICY", "passive", 0);
#endif
    /* libsvtav1 prints its banner and configuration (some 15 "Svt[info]"
     * lines a run) straight to stderr, past FFmpeg's log level, which the
     * program keeps at warnings (io_show_ffmpeg_log()): the same level for
     * it, unless the user chose one. */
    if (!getenv("SVT_LOG"))
        setenv("SVT_LOG", "2", 0);
    static const char name[] = "omcti-bin";
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path);
    if (n > 0 && (size_t)n < sizeof path)
        path[n] = 0;
    char *slash = n > 0 && (size_t)n < sizeof path ? strrchr(path, '/') : NULL;
    if (!slash || (size_t)(slash + 1 - path) + sizeof name > sizeof path) {
        fprintf(stderr, "omcti: cannot find the program's own folder (/proc/self/exe)\n");
        return 1;
    }
    memcpy(slash + 1, name, sizeof name);
    execv(path, argv);
    const int e = errno;
    fprintf(stderr, "omcti: cannot run '");
    print_path(path);
    fprintf(stderr, "': %s\n", strerror(e));
    return 1;
}
