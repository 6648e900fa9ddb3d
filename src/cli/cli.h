/* The omcti program: subcommands and the helpers they share. */
#ifndef OMCTI_CLI_H
#define OMCTI_CLI_H

#include <signal.h>
#include <stddef.h>

#include "omcti.h"

/* Exit codes (docs/errors.md). */
enum {
    EXIT_OK = 0,
    EXIT_FAILURE_RUN = 1,   /* input, output, engine or processing error */
    EXIT_USAGE = 2,         /* invalid command line                       */
    EXIT_INTERRUPTED = 130, /* SIGINT, SIGTERM, SIGHUP, SIGXCPU, SIGUSR1/2, SIGALRM */
};

int cli_convert(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_eval(int argc, char **argv);
int cli_join(int argc, char **argv);
int cli_farm(int argc, char **argv);

/* Set by a signal that stops the run (main.c); long loops poll it. A signal handler can only
 * talk to the program through such a flag, so this is the one
 * process-wide variable (see main.c). */
int cli_interrupted(void);
/* What stopped the run, for its one line: "interrupted" (SIGINT, SIGTERM)
 * or "stopped by SIGXCPU (the CPU-time limit, ulimit -t)" and the like. */
const char *cli_stop_reason(void);
void cli_install_signal_handlers(void);

/* Prints "omcti: <msg>" on stderr; returns code. */
int cli_error(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A command-line error of subcommand sub ("bench", "join", ...): prints
 * "omcti: SUB: <msg>" (msg as it is where it names sub already: the
 * option helpers' words do not, the subcommand's own do); returns
 * EXIT_USAGE. Every subcommand's value errors read alike this way. */
int cli_usage_error(const char *sub, const char *msg);

#endif
