/* Command-line parsing: every bad option gives a one-line error; good ones
 * land in the right fields. */
#include <stdio.h>
#include <string.h>

#include "src/cli/options.h"
#include "tests/check.h"


int main(void)
{
    TestState ts = { 0, 0 };
    CliOptions o;
    char err[512];

    CHECK(&ts, parse_command_line("-i a.mkv -o b.mkv", &o, err, sizeof err) == 0, "%s", err);
    CHECK(&ts, o.mode == RATE_FACTOR && o.factor == 2, "default 2x");
    CHECK(&ts, o.settings.method == OMCTI_METHOD_OMCTI && o.settings.search == OMCTI_SEARCH_PYRAMID, "defaults");
    CHECK(&ts, o.settings.block == 16 && o.settings.range == 0, "block/range defaults (range: auto)");

    CHECK(&ts, parse_command_line("-i a -o b --factor 4 --method blend --search diamond --engine cpu --threads 3 --block 8 --range 32 -y --lossless --crf=20 --scd none", &o, err, sizeof err) == 0, "%s", err);
    CHECK(&ts, o.factor == 4 && o.settings.method == OMCTI_METHOD_BLEND && o.settings.search == OMCTI_SEARCH_DIAMOND, "values");
    CHECK(&ts, o.settings.threads == 3 && o.settings.block == 8 && o.settings.range == 32, "numbers");
    CHECK(&ts, o.overwrite && o.lossless && o.crf == 20 && o.settings.scd == OMCTI_SCD_NONE, "flags");
    CHECK(&ts, !strcmp(o.settings.engine, "cpu"), "engine");

    CHECK(&ts, parse_command_line("-i a -o b --fps 60000/1001", &o, err, sizeof err) == 0 && o.mode == RATE_FPS && o.fps.num == 60000, "fps");
    CHECK(&ts, parse_command_line("-i a -o b --slowmo 8", &o, err, sizeof err) == 0 && o.mode == RATE_SLOWMO && o.factor == 8, "slowmo");
    CHECK(&ts, parse_command_line("-i - -o -", &o, err, sizeof err) == 0 && !strcmp(o.input, "-"), "pipes");
    CHECK(&ts, parse_command_line("--help", &o, err, sizeof err) == 0 && o.help, "help");

    const char *bad[][2] = {
        { "-i a -o b --factor 0", "--factor" },
        { "-i a -o b --factor 1", "--factor" },
        { "-i a -o b --factor x", "--factor" },
        { "-i a -o b --range -4", "--range" },
        { "-i a -o b --range 65", "--range" },
        { "-i a -o b --workers 65", "--workers: 65 is out of range (1..64)" },
        { "-i a -o b --workers 256", "--workers" },
        { "-i a -o b --workers 0", "--workers" },
        { "-i a -o b --engine cuda --devices 0-64", "--devices" },
        { "-i a -o b --block 12", "--block" },
        { "-i a -o b --method magic", "unknown method" },
        { "-i a -o b --engine opencl", "unknown engine" },
        { "-i a -o b --search hexagon", "unknown search" },
        { "-i a -o b --threads 0", "--threads" },
        { "-i a -o b --fps 0", "--fps" },
        { "-i a -o b --fps abc", "--fps" },
        { "-i a -o b --factor 2 --fps 60", "mutually exclusive" },
        { "-i a -o b --slowmo 4 --factor 2", "mutually exclusive" },
        { "-i a -o b --crf 99", "--crf" },
        { "-i a -o b --bogus", "unknown option" },
        /* a likely typo is named, as git and cargo do */
        { "-i a -o b --fsp 60", "unknown option '--fsp'; did you mean '--fps'?" },
        { "-i a -o b --slomo 4", "did you mean '--slowmo'?" },
        { "-i a -o b --stat-period 1", "did you mean '--stats-period'?" },
        { "-i a -o b --stats 1", "did you mean '--stats-period'?" },
        { "-i a -o b --FPS 60", "did you mean '--fps'?" },
        { "-i a -o b -version", "did you mean '--version'?" },
        { "-i a -o b -r 60", "did you mean '--fps'?" },
        { "-i a -o b --thread=2", "unknown option '--thread=2'; did you mean '--threads'?" },
        { "-i a -o b stray", "unexpected argument 'stray' (inputs are given with -i" },
        { "a.mkv -o b", "unexpected argument 'a.mkv' (inputs are given with -i" },
        /* FFmpeg's habit: the output last, without -o */
        { "-i a b.mp4", "unexpected argument 'b.mp4' (the output is given with -o OUTPUT" },
        { "-o b", "no input" },
        { "-i a", "no output" },
        { "-i a -o", "needs a value" },
        { "-i a -o b --scd sometimes", "--scd" },
        { "-i a -o b --scd-threshold 0", "--scd-threshold" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        int ret = parse_command_line(bad[i][0], &o, err, sizeof err);
        CHECK(&ts, ret < 0, "'%s' must fail", bad[i][0]);
        CHECK(&ts, strstr(err, bad[i][1]) != NULL, "'%s': message '%s' lacks '%s'", bad[i][0], err, bad[i][1]);
        CHECK(&ts, !strchr(err, '\n'), "one line");
    }

    /* cli_convert_options (the suggestions' and farm's list) and the parser
     * agree: every option the help names is in the list, and the parser
     * knows every name of the list (a new option missing from the list
     * would be refused by farm as unknown) */
    for (const char *l = cli_convert_usage; (l = strstr(l, "\n  -")) != NULL;) {
        l += 3;
        for (const char *t = l; *t == '-';) {
            const size_t n = strcspn(t, " ,\n");
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)n, t);
            CHECK(&ts, cli_option_known(name, cli_convert_options),
                  "'%s' of the help is not in cli_convert_options", name);
            t += n;
            if (strncmp(t, ", -", 3))
                break;
            t += 2;
        }
    }
    for (int k = 0; cli_convert_options[k]; k++) {
        char line[96];
        snprintf(line, sizeof line, "-i a -o b %s", cli_convert_options[k]);
        parse_command_line(line, &o, err, sizeof err);
        CHECK(&ts, !strstr(err, "unknown option"), "the parser refuses %s of the list: %s",
              cli_convert_options[k], err);
        err[0] = 0;
    }

    /* no guess where nothing is near, or two names are as near */
    CHECK(&ts, parse_command_line("-i a -o b --speed 9", &o, err, sizeof err) < 0 &&
               !strstr(err, "did you mean"), "--speed: no suggestion, got '%s'", err);
    CHECK(&ts, parse_command_line("-i a -o b -x", &o, err, sizeof err) < 0 &&
               !strstr(err, "did you mean"), "-x: no suggestion, got '%s'", err);
    CHECK(&ts, cli_suggest_option("--dev", cli_convert_options) == NULL, "--dev is ambiguous");

    int list[64];
    CHECK(&ts, parse_int_list("--threads", "1,2,4", 1, 64, list, 64, err, sizeof err) == 3 && list[2] == 4, "list");
    CHECK(&ts, parse_int_list("--threads", "1-5", 1, 64, list, 64, err, sizeof err) == 5 && list[4] == 5, "range list");
    CHECK(&ts, parse_int_list("--threads", "1,,2", 1, 64, list, 64, err, sizeof err) < 0, "malformed");
    CHECK(&ts, parse_int_list("--threads", "0", 1, 64, list, 64, err, sizeof err) < 0, "out of range");
    CHECK(&ts, parse_int_list("--threads", "3-1", 1, 64, list, 64, err, sizeof err) < 0, "empty range");
    return test_finish(&ts, "options");
}
