# The shell tests' common part, sourced after `set -u` (tests/io/*_test.sh):
# a skip without the FFmpeg CLI, a work folder removed at exit, the pass and
# fail counts and the summary line that ends every test's output.
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# check DESCRIPTION COMMAND: one pass when the command succeeds
check() { if eval "$2"; then ok; else bad "$1"; fi; }
# exit 77 (meson: skipped) when the ffmpeg or ffprobe CLI is missing
need_ffmpeg() {
    command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || { echo "no ffmpeg CLI"; exit 77; }
}
# work_dir NAME: T, a fresh folder /tmp/omcti-NAME-XXXXXX, removed at exit
work_dir() {
    T=$(mktemp -d "/tmp/omcti-$1-XXXXXX")
    trap 'rm -rf "$T"' EXIT
}
# finish [LABEL]: the summary line; the status is that of the test
finish() {
    echo "${1:+$1: }$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
