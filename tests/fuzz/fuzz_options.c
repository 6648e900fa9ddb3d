/* libFuzzer target: the command-line parser on arbitrary argument vectors
 * (NUL-separated) must accept or reject with a message, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = 0;
    char *argv[65];
    int argc = 0;
    argv[argc++] = "omcti";
    for (size_t i = 0; i < size && argc < 64;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    CliOptions o;
    char err[512];
    if (cli_parse_convert(argc, argv, 1, &o, err, sizeof err) < 0 && !err[0])
        abort();   /* every rejection must say why */
    int list[64];
    if (argc > 1) parse_int_list("--threads", argv[1], 1, 1024, list, 64, err, sizeof err);
    free(buf);
    return 0;
}
