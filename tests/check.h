/* Minimal test helpers: CHECK records a failure with its line and goes on,
 * so one run reports every broken expectation. */
#ifndef OMCTI_TESTS_CHECK_H
#define OMCTI_TESTS_CHECK_H

#include <stdio.h>

typedef struct TestState {
    int checks, failures;
} TestState;

#define CHECK(ts, cond, ...)                                                  \
    do {                                                                      \
        (ts)->checks++;                                                       \
        if (!(cond)) {                                                        \
            (ts)->failures++;                                                 \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

static inline int test_finish(const TestState *ts, const char *name)
{
    printf("%s: %d checks, %d failed\n", name, ts->checks, ts->failures);
    return ts->failures ? 1 : 0;
}

/* Splits "a b c" into argv (after a leading "omcti") and runs the convert
 * parser on it: the tests write command lines as one string. */
#ifdef OMCTI_CLI_OPTIONS_H
#include <string.h>
static inline int parse_command_line(const char *line, CliOptions *o, char *err, size_t n)
{
    char buf[1024], *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "omcti %s", line);
    for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    return cli_parse_convert(argc, argv, 1, o, err, n);
}
#endif

#endif
