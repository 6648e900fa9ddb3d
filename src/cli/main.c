#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cli/cli.h"
#include "src/io/io.h"

/* The only process-wide variable: a signal handler can do nothing else. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

int cli_interrupted(void)
{
    return interrupted != 0;
}

void cli_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A closed pipe shows up as a write error we report, not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    /* Past a file-size limit, write() fails with EFBIG and we clean up,
     * exactly as on a full disk, instead of dying with a core dump. */
    signal(SIGXFSZ, SIG_IGN);
}

/* One line whatever the names in it hold: control bytes (a newline or an
 * escape sequence in a file name, a header's raw bytes), C1 controls and
 * invalid UTF-8 are shown as \xNN, the one form of every message (the io
 * layer's io_printable()), never passed to the terminal. */
int cli_error(int code, const char *fmt, ...)
{
    char msg[4096], shown[4 * sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "omcti: %s\n", io_printable(msg, shown, sizeof shown));
    return code;
}

/* OpenMP runtimes spin-wait between parallel regions (libgomp: some
 * 300,000 turns, about a millisecond) before they sleep. Those spins take
 * the core from this process's own read-ahead and write-behind threads and,
 * on a shared machine, from everyone else; a thread that was preempted
 * meanwhile holds up the others. On the 2-core machine the 1080p
 * conversion took 3.0x as long with one other busy process, 1.3x as long
 * with a lightly loaded machine (docs/benchmarks.md). The runtime reads its
 * wait policy from the environment once, before main() runs, and has no
 * call to change it: so the tool (not the library, which reads no
 * environment) runs itself again with OMP_WAIT_POLICY=passive, unless the
 * user chose a policy. Where the program cannot be run again, it goes on
 * with the runtime's own policy. */
static void prefer_passive_waiting(char **argv)
{
#if OMCTI_HAVE_OPENMP && defined(__linux__)
    /* The program's own path, as the kernel knows it (valgrind shows its
     * client's here, so a run under it stays under it). */
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || n >= (ssize_t)sizeof self - 1 || getenv("OMP_WAIT_POLICY") ||
        setenv("OMP_WAIT_POLICY", "passive", 0) < 0)
        return;
    self[n] = 0;
    execv(self, argv);
#else
    (void)argv;
#endif
}

int main(int argc, char **argv)
{
    prefer_passive_waiting(argv);
    if (argc > 1 && !strcmp(argv[1], "bench"))
        return cli_bench(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "eval"))
        return cli_eval(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "join"))
        return cli_join(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "farm"))
        return cli_farm(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "convert"))
        return cli_convert(argc - 1, argv + 1);
    if (argc == 1) {
        fprintf(stderr, "usage: omcti -i INPUT -o OUTPUT [options]   (omcti --help for more)\n");
        return EXIT_USAGE;
    }
    return cli_convert(argc, argv);
}
