#!/usr/bin/env bash
# The project's test command (README.md, .ci/run): builds and runs the whole
# suite twice — a release build, then the same tests under AddressSanitizer
# and UndefinedBehaviorSanitizer — and ends with "N passed, N failed".
# usage: tests/run_tests.sh [--no-sanitizers] [extra meson setup options]
set -uo pipefail
cd "$(dirname "$0")/.."
sanitizers=1
if [ "${1:-}" = --no-sanitizers ]; then sanitizers=0; shift; fi

passed=0 failed=0 skipped=0
suite() {
    local dir=$1; shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; failed=$((failed + 1)); return; }
    fi
    if ! ninja -C "$dir" >"$dir.build.log" 2>&1; then
        tail -50 "$dir.build.log"; failed=$((failed + 1)); return
    fi
    meson test -C "$dir" --print-errorlogs --num-processes 2 "${MESON_TEST_ARGS[@]}"
    # Count from meson's JSON log: one line per test, "result" names the outcome.
    local counts
    counts=$(python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else: f += 1
print(p, f, s)
PY
)
    read -r p f s <<<"$counts"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}

MESON_TEST_ARGS=()
suite build "$@"
# The FFmpeg-less build (what the GPU machine builds): y4m only; valgrind
# runs here, since it cannot load FFmpeg's libraries on AVX-512 machines.
MESON_TEST_ARGS=(--no-suite fuzz)
suite build-noffmpeg -Dffmpeg=disabled "$@"
if [ $sanitizers = 1 ]; then
    # Sanitized code runs several times slower: the suite's long tests scale
    # their frame counts down when OMCTI_SANITIZED is set.
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export OMCTI_SANITIZED=1
    # The fuzzers carry their own sanitizers: run them once, in the first pass.
    MESON_TEST_ARGS=(--timeout-multiplier 4 --no-suite fuzz)
    suite build-asan -Db_sanitize=address,undefined -Dbuildtype=debugoptimized -Db_lundef=false "$@"
fi
echo "$skipped skipped (they need a GPU, or cannot run under the sanitizers)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
