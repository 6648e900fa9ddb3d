#!/usr/bin/env bash
# Valgrind on full conversions (no invalid access, no definite leak), and
# memory that does not grow with the length of the input (peak RSS of a
# 2000-frame conversion against a 200-frame one).
# usage: resources_test.sh OMCTI Y4MTOOL HAVE_FFMPEG
set -u
OMCTI=$1 Y4M=$2 HAVE_FFMPEG=$3
if [ -n "${OMCTI_SANITIZED:-}" ]; then echo "sanitized build: valgrind and RSS checks skipped"; exit 77; fi
T=$(mktemp -d "${TMPDIR:-/tmp}/omcti-res-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

"$Y4M" gen 96 64 12 > "$T/small.y4m"
# Valgrind cannot run FFmpeg-linked binaries on AVX-512 machines (libavcodec
# pulls in libhwy, whose start-up code uses instructions valgrind lacks), so
# the check runs on the FFmpeg-less build that tests/run_tests.sh also makes.
# (the omcti command runs omcti-bin, beside it: the libraries are that one's)
BIN=$(dirname "$OMCTI")/omcti-bin; [ -x "$BIN" ] || BIN=$OMCTI
if ldd "$BIN" 2>/dev/null | grep -q libavcodec; then
    echo "FFmpeg-linked binary: valgrind check runs in the FFmpeg-less build"
elif command -v valgrind >/dev/null; then
    # (--trace-children: the omcti command runs the program, omcti-bin)
    vg() { valgrind -q --trace-children=yes --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
           --show-leak-kinds=definite "$@"; }
    for m in omcti blend; do
        vg "$OMCTI" -q -y -i "$T/small.y4m" -o "$T/out.y4m" --engine cpu --method $m 2>"$T/vg"
        rc=$?; [ $rc -eq 0 ] && ok || bad "valgrind y4m $m: exit $rc: $(head -30 "$T/vg")"
    done
    vg "$OMCTI" -q -y -i - -o - --engine cpu --search diamond --slowmo 3 <"$T/small.y4m" >/dev/null 2>"$T/vg"
    rc=$?; [ $rc -eq 0 ] && ok || bad "valgrind pipe: exit $rc: $(head -30 "$T/vg")"
else
    echo "valgrind not installed: leak check skipped"
fi

# Peak RSS must not grow with the number of frames (no per-frame leak or queue).
peak_kb() {
    python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
"$Y4M" gen 160 120 200 > "$T/short.y4m"
"$Y4M" gen 160 120 2000 > "$T/long.y4m"
for out in y4m mkv; do
    [ $out = mkv ] && { [ "$HAVE_FFMPEG" = 1 ] || continue; }
    a=$(peak_kb "$OMCTI" -q -y -i "$T/short.y4m" -o "$T/o.$out" --engine cpu) || { bad "200-frame run failed"; continue; }
    b=$(peak_kb "$OMCTI" -q -y -i "$T/long.y4m" -o "$T/o.$out" --engine cpu) || { bad "2000-frame run failed"; continue; }
    echo "peak RSS to .$out: 200 frames ${a} KiB, 2000 frames ${b} KiB"
    [ "$b" -le $((a + a / 10 + 2048)) ] && ok || bad "memory grows with length (.$out): $a KiB -> $b KiB"
done
echo "resources_test: $pass passed, $fail failed"
[ $fail -eq 0 ]
