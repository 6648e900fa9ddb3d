#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "src/cli/cli.h"
#include "src/io/io.h"

/* The only process-wide variable: a signal handler can do nothing else.
 * The number of the signal that stopped the run, 0 while none has. */
static volatile sig_atomic_t interrupted;

/* The first signal is the reason: the wake signal (SIGINT) that the io
 * layer sends its own threads once a stop is requested (src/io/async.c)
 * must not turn "stopped by SIGUSR1" into "interrupted". */
static void on_signal(int sig)
{
    if (!interrupted)
        interrupted = sig;
}

int cli_interrupted(void)
{
    return interrupted != 0;
}

const char *cli_stop_reason(void)
{
    switch (interrupted) {
    case SIGXCPU: return "stopped by SIGXCPU (the CPU-time limit, ulimit -t)";
    case SIGUSR1: return "stopped by SIGUSR1";
    case SIGUSR2: return "stopped by SIGUSR2";
    case SIGALRM: return "stopped by SIGALRM";
    case SIGHUP: return "stopped by SIGHUP (the terminal closed)";
    default: return "interrupted";   /* SIGINT, SIGTERM */
    }
}

void cli_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A closed terminal or a dropped ssh session: stop and clean up too,
     * never leave a partial temporary file behind; but under nohup (the
     * signal ignored when we start) the user asked to go on. */
    struct sigaction hup;
    if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
    /* The other signals whose default ends the process without a word: a
     * CPU-time limit (ulimit -t, a batch system's), a scheduler's warning
     * before a job's end (Slurm's --signal sends SIGUSR1 by default), an
     * alarm. Stop and clean up as for SIGTERM rather than leave the hidden
     * temporary file behind; an ignored one stays ignored. */
    static const int stop_signals[] = { SIGXCPU, SIGUSR1, SIGUSR2, SIGALRM };
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++) {
        struct sigaction old;
        if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
    }
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

int cli_usage_error(const char *sub, const char *msg)
{
    const size_t n = strlen(sub);
    if (!strncmp(msg, sub, n) && msg[n] == ':')
        return cli_error(EXIT_USAGE, "%s", msg);
    return cli_error(EXIT_USAGE, "%s: %s", sub, msg);
}

/* (started by the omcti command, launcher.c, which sets OpenMP's wait
 * policy first) */
int main(int argc, char **argv)
{
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
