#!/usr/bin/env bash
# The io layer against a hostile user (issue 13): files that are damaged or
# lie, outputs that appear during the run, pipes by path, signals while
# blocked on a pipe, huge headers, names no terminal should see raw.
# usage: hostile_io_test.sh OMCTI Y4MTOOL HAVE_FFMPEG
set -u
OMCTI=$1 Y4M=$2 HAVE_FFMPEG=$3
T=$(mktemp -d /tmp/omcti-hostile-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
have_ffmpeg_cli() { [ "$HAVE_FFMPEG" = 1 ] && command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null; }
# one line on stderr, "omcti: " first, holding $2
one_line() {
    local lines; lines=$(grep -c . "$T/err")
    [ "$lines" -eq 1 ] && grep -q "^omcti: .*$2" "$T/err" && ok ||
        bad "$1: stderr '$(head -c 400 "$T/err")' is not one line with '$2'"
}

"$Y4M" gen 96 64 12 > "$T/s.y4m"
HDR=$(head -1 "$T/s.y4m" | wc -c)
FRAME=$((6 + 96 * 64 * 3 / 2))

# --- item 3: a video stream without a decoder (renamed codec id) ---------
if have_ffmpeg_cli; then
    ffmpeg -v error -y -f lavfi -i testsrc=size=64x48:rate=25 -frames 6 -c:v mpeg4 "$T/v.mkv"
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(d.replace(b"V_MPEG4/ISO/ASP", b"V_MPEG4/ISO/XYZ"))' \
        "$T/v.mkv" "$T/nodec.mkv"
    "$OMCTI" -i "$T/nodec.mkv" -o "$T/nodec-out.mkv" 2>"$T/err"; rc=$?
    [ $rc -eq 1 ] && ok || bad "no decoder: exit $rc: $(head -c 300 "$T/err")"
    one_line "no decoder" "no decoder for the video codec"
    [ ! -e "$T/nodec-out.mkv" ] && ok || bad "no decoder: an output was written"
fi

# --- item 4: an output that appears during the run is never replaced -------
# The stream stalls after a few frames (the output is open by then); the
# file appears; then the stream ends and the run must keep its result aside.
appears_meanwhile() {   # NAME OUTPUT [omcti options]
    local name=$1 out=$2; shift 2
    rm -f "$out"
    { head -c $((HDR + 4 * FRAME)) "$T/s.y4m"; sleep 1.5; tail -c +$((HDR + 4 * FRAME + 1)) "$T/s.y4m"; } |
        "$OMCTI" -q -i - -o "$out" "$@" 2>"$T/err" &
    local pid=$!
    sleep 0.7
    echo PRECIOUS > "$out"
    wait $pid; local rc=$?
    [ $rc -eq 1 ] && ok || bad "$name: exit $rc, wanted 1: $(head -c 300 "$T/err")"
    [ "$(cat "$out")" = PRECIOUS ] && ok || bad "$name: the file that appeared was replaced"
    one_line "$name" "appeared during the run"
    local kept; kept=$(sed -n "s/.*the result is kept as '\(.*\)'$/\1/p" "$T/err")
    [ -n "$kept" ] && [ -s "$kept" ] && ok || bad "$name: the finished result is not kept ('$kept')"
    rm -f "$kept"
}
appears_meanwhile "appears meanwhile (y4m)" "$T/race.y4m"
[ "$HAVE_FFMPEG" = 1 ] && appears_meanwhile "appears meanwhile (mkv)" "$T/race.mkv"
# with -y the file is replaced, as asked
rm -f "$T/race.y4m"
{ head -c $((HDR + 4 * FRAME)) "$T/s.y4m"; sleep 1.5; tail -c +$((HDR + 4 * FRAME + 1)) "$T/s.y4m"; } |
    "$OMCTI" -q -y -i - -o "$T/race.y4m" 2>"$T/err" &
pid=$!; sleep 0.7; echo PRECIOUS > "$T/race.y4m"; wait $pid; rc=$?
[ $rc -eq 0 ] && [ "$(head -c 9 "$T/race.y4m")" = YUV4MPEG2 ] && ok || bad "-y: exit $rc, not replaced"
# the in-place y4m of --workers: the file appears once the temporary file exists
"$Y4M" gen 320 240 120 > "$T/w.y4m"
rm -f "$T/wout.y4m"
"$OMCTI" -q -i "$T/w.y4m" -o "$T/wout.y4m" --workers 2 --engine cpu 2>"$T/err" &
pid=$!
for _ in $(seq 200); do ls "$T"/.wout.omcti-* >/dev/null 2>&1 && break; sleep 0.02; done
echo PRECIOUS > "$T/wout.y4m"
wait $pid; rc=$?
[ $rc -eq 1 ] && [ "$(cat "$T/wout.y4m")" = PRECIOUS ] && ok ||
    bad "appears meanwhile (--workers y4m): exit $rc, $(head -c 20 "$T/wout.y4m")"
rm -f "$T"/.wout.omcti-*

echo "hostile_io_test: $pass passed, $fail failed"
[ $fail -eq 0 ]
