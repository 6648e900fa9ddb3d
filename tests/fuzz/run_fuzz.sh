#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a
# short while from the committed seed corpus. Exit 77 (skip) without clang's
# libFuzzer. usage: run_fuzz.sh SOURCE_ROOT BUILD_DIR [SECONDS_PER_TARGET]
set -u
src=$1 out=$2/fuzz secs=${3:-40}
command -v clang >/dev/null || { echo "clang not installed: fuzzing skipped"; exit 77; }
mkdir -p "$out"
flags=(-std=c11 -D_GNU_SOURCE -DOMCTI_HAVE_FFMPEG=0 -DOMCTI_HAVE_CUDA=0 -DOMCTI_HAVE_OPENMP=0
       '-DOMCTI_VERSION_STRING="fuzz"' -I"$src" -I"$src/include" -g -O1
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
if ! echo 'int LLVMFuzzerTestOneInput(const char*d,long n){(void)d;(void)n;return 0;}' |
        clang -x c - -fsanitize=fuzzer -o "$out/probe" 2>/dev/null; then
    echo "clang has no libFuzzer runtime (libclang-rt-dev): fuzzing skipped"; exit 77
fi
clang "${flags[@]}" -o "$out/fuzz_y4m" "$src/tests/fuzz/fuzz_y4m.c" \
    "$src/src/io/y4m.c" "$src/src/io/io.c" "$src/src/io/frame_index.c" "$src/src/common.c" \
    "$src/src/rational.c" || exit 1
clang "${flags[@]}" -o "$out/fuzz_options" "$src/tests/fuzz/fuzz_options.c" \
    "$src/src/cli/options.c" "$src/src/settings.c" "$src/src/rational.c" "$src/src/common.c" || exit 1
status=0
for t in y4m options; do
    mkdir -p "$out/corpus-$t"
    echo "fuzzing $t for ${secs}s"
    if ! "$out/fuzz_$t" -max_total_time="$secs" -rss_limit_mb=4096 -timeout=10 \
            -print_final_stats=1 "$out/corpus-$t" "$src/tests/fuzz/corpus/$t" >"$out/$t.log" 2>&1; then
        echo "FAIL: fuzz_$t found a crash:"; tail -40 "$out/$t.log"; status=1
    else
        grep -E "stat::number_of_executed_units|Done" "$out/$t.log" | head -2
    fi
done
exit $status
