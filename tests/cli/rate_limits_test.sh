#!/usr/bin/env bash
# Rates and options that used to be accepted, or refused with the wrong code
# or the wrong file named: each is now refused before a picture is written,
# in one line that says why, with the right exit code (1: the input, 2: the
# command line, the output's container and rate included: a container that
# cannot keep the rate's frames apart exited 1 before 2026-11-28, one that
# cannot hold the --codec 2), leaving no output, no temporary file
# and an existing output untouched.
# usage: rate_limits_test.sh OMCTI Y4MTOOL HAVE_FFMPEG
set -u
OMCTI=$(realpath "$1") Y4M=$(realpath "$2") HAVE_FFMPEG=$3
T=$(mktemp -d "${TMPDIR:-/tmp}/omcti-rate-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }

# refused NAME EXIT NEEDLE OUT CMD...: exit code, one "omcti: ...NEEDLE..."
# line (notes before it allowed), nothing left under OUT's name or as a
# temporary beside it (.NAME.* files, .NAME.omcti-parts-* folders); then
# the same run over an existing OUT leaves it as it was, with and without -y.
refused() {
    local name=$1 want=$2 needle=$3 out=$4; shift 4
    local base; base=$(basename "$out")
    rm -rf "$out" "$T"/."$base"*
    "$@" -o "$out" >/dev/null 2>"$T/err"; local rc=$?
    if [ "$rc" -ne "$want" ]; then bad "$name: exit $rc, wanted $want: $(cat "$T/err")"; return; fi
    local last; last=$(grep -v '^omcti: note:\|^omcti: warning:\|^omcti: counting' "$T/err")
    [ "$(printf '%s\n' "$last" | grep -c .)" -eq 1 ] || { bad "$name: not one line: $(cat "$T/err")"; return; }
    grep -q "^omcti: .*$needle" <<<"$last" || { bad "$name: '$last' lacks '$needle'"; return; }
    if [ -e "$out" ] || ls -A "$T" | grep -q "^\.$base"; then bad "$name: left behind: $(ls -A "$T")"; return; fi
    echo "an existing output" > "$out"
    for y in "" -y; do
        "$@" -o "$out" $y >/dev/null 2>"$T/err"; rc=$?
        [ "$rc" -ne 0 ] && [ "$(cat "$out")" = "an existing output" ] ||
            { bad "$name${y:+ $y}: exit $rc, the existing output changed: $(cat "$T/err")"; rm -f "$out"; return; }
    done
    if ls -A "$T" | grep -q "^\.$base"; then bad "$name: temporary left behind: $(ls -A "$T")"; fi
    rm -f "$out"
    ok
}

"$Y4M" gen 64 48 6 > "$T/in.y4m"
# a y4m whose header states a rate that doubled no longer fits 31 bits
sed '1s/F[0-9]*:[0-9]*/F2147483647:1/' "$T/in.y4m" > "$T/max.y4m"
sed '1s/F[0-9]*:[0-9]*/F1500000000:1/' "$T/in.y4m" > "$T/fast.y4m"
# 1000 fps (a high-speed camera): doubled, finer than Matroska's 1 ms
sed '1s/F[0-9]*:[0-9]*/F1000:1/' "$T/in.y4m" > "$T/k.y4m"

# --- the input's rate is the problem: exit 1, the input named ---
refused "F2147483647:1 doubled" 1 "'$T/max.y4m': the frame rate 2147483647/1 is too high to double exactly" "$T/out.y4m" "$OMCTI" -i "$T/max.y4m"
refused "F2147483647:1 doubled, --workers 2" 1 "'$T/max.y4m': the frame rate 2147483647/1 is too high to double exactly" "$T/out.y4m" "$OMCTI" -i "$T/max.y4m" --workers 2
refused "F1500000000:1 x3" 1 "'$T/fast.y4m': the frame rate 1500000000/1 is too high to multiply by 3 exactly" "$T/out.y4m" "$OMCTI" -i "$T/fast.y4m" --factor 3
refused "F2147483647:1 doubled, --segment 0/2" 1 "'$T/max.y4m': the frame rate 2147483647/1 is too high to double" "$T/out.y4m" "$OMCTI" -i "$T/max.y4m" --segment 0/2
# (to stdout: nothing may be written either)
"$OMCTI" -i "$T/max.y4m" -o - >"$T/stdout" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$T/stdout" ] && grep -q "max.y4m': the frame rate 2147483647/1 is too high" "$T/err" && ok ||
    bad "F2147483647:1 doubled to stdout: exit $rc, $(wc -c <"$T/stdout") bytes: $(cat "$T/err")"

# --- --fps: at most 64 x the input's rate (as --factor and --slowmo) ---
# (under timeout: without the limit these write 240 million frames)
refused "--fps 999999999/1" 2 "--fps 999999999/1: more than 64 x the 25 fps of '$T/in.y4m' (at most 1600 fps" "$T/out.y4m" timeout 10 "$OMCTI" -i "$T/in.y4m" --fps 999999999/1
refused "--fps 1601" 2 "--fps 1601/1: more than 64 x the 25 fps" "$T/out.y4m" "$OMCTI" -i "$T/in.y4m" --fps 1601
refused "--fps 999999999/1, --workers 2" 2 "--fps 999999999/1: more than 64 x" "$T/out.y4m" timeout 10 "$OMCTI" -i "$T/in.y4m" --fps 999999999/1 --workers 2
"$OMCTI" -q -i "$T/in.y4m" -o "$T/ok.y4m" --fps 1600 2>"$T/err"; rc=$?
n=$("$Y4M" info "$T/ok.y4m" 2>/dev/null | cut -d' ' -f5)
[ $rc -eq 0 ] && [ "$n" = 384 ] && ok || bad "--fps 1600 (64 x 25): exit $rc, ${n:-no} frames: $(cat "$T/err")"
rm -f "$T/ok.y4m"
"$OMCTI" --help | grep -q -- "--fps RATE.*at most" && ok || bad "--help does not give --fps's limit"
# a slideshow (1 fps) may still become a 240 fps video (240 x), not more
sed '1s/F[0-9]*:[0-9]*/F1:1/' "$T/in.y4m" > "$T/slides.y4m"
"$OMCTI" -q -i "$T/slides.y4m" -o "$T/ok.y4m" --fps 240 2>"$T/err" && ok || bad "--fps 240 of a 1 fps input: $(cat "$T/err")"
rm -f "$T/ok.y4m"
refused "--fps 241 of a 1 fps input" 2 "--fps 241/1: more than 64 x the 1 fps of '$T/slides.y4m' (at most 240 fps" "$T/out.y4m" "$OMCTI" -i "$T/slides.y4m" --fps 241

# --- --codec where nothing is encoded, or naming nothing: exit 2 ---
refused "--codec mjpeg to .y4m" 2 "--codec mjpeg: the output '$T/out.y4m' is y4m" "$T/out.y4m" "$OMCTI" -i "$T/in.y4m" --codec mjpeg
refused "--codec ''" 2 "--codec: empty encoder name" "$T/out.mkv" "$OMCTI" -i "$T/in.y4m" --codec ""
"$OMCTI" -i "$T/in.y4m" -o - --codec mjpeg >"$T/stdout" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ ! -s "$T/stdout" ] && grep -q "is y4m" "$T/err" && ok ||
    bad "--codec mjpeg to stdout: exit $rc: $(cat "$T/err")"

# --- what the output container cannot store ---
if [ "$HAVE_FFMPEG" = 1 ] && command -v ffmpeg >/dev/null && command -v python3 >/dev/null; then
    # 1000 fps doubled: Matroska's 1 ms cannot tell its frames apart (half
    # of them shared a timestamp, exit 0; then exit 1, not the 2 of the
    # other output choices refused); MP4 and NUT can
    refused "2000 fps to .mkv" 2 "'$T/out.mkv': Matroska stores times in 1 ms steps, too coarse for 2000 fps" "$T/out.mkv" "$OMCTI" -i "$T/k.y4m"
    refused "2000 fps to .mkv, --workers 2" 2 "'$T/out.mkv': Matroska stores times in 1 ms steps, too coarse for 2000 fps" "$T/out.mkv" "$OMCTI" -i "$T/k.y4m" --workers 2
    refused "2000 fps to .webm" 2 "WebM stores times in 1 ms steps" "$T/out.webm" "$OMCTI" -i "$T/k.y4m"
    refused "--fps 1001 to .mkv" 2 "too coarse for 1001 fps" "$T/out.mkv" "$OMCTI" -i "$T/k.y4m" --fps 1001
    # into a FIFO: refused before the header, so its reader gets nothing
    # (the writer used to send Matroska's header, then stop: a cut stream)
    mkfifo "$T/fifo.mkv"
    cat "$T/fifo.mkv" > "$T/got" & reader=$!
    "$OMCTI" -i "$T/k.y4m" -o "$T/fifo.mkv" -y 2>"$T/err"; rc=$?
    [ -e /proc/$reader ] && { exec 3>"$T/fifo.mkv"; exec 3>&-; }   # release the reader
    wait $reader
    [ $rc -eq 2 ] && [ ! -s "$T/got" ] && grep -q "too coarse for 2000 fps" "$T/err" && ok ||
        bad "2000 fps into a FIFO .mkv: exit $rc, the reader got $(wc -c <"$T/got") bytes: $(cat "$T/err")"
    rm -f "$T/fifo.mkv" "$T/got"
    # join: .mp4 pieces at 2000 fps into .mkv (5 of 12 packets shared a
    # timestamp, exit 0)
    "$OMCTI" -q -i "$T/k.y4m" -o "$T/p0.mp4" --segment 0/2 && "$OMCTI" -q -i "$T/k.y4m" -o "$T/p1.mp4" --segment 1/2 ||
        bad "2000 fps pieces into .mp4"
    refused "join of 2000 fps pieces into .mkv" 2 "Matroska stores times in 1 ms steps, too coarse for 2000 fps" "$T/out.mkv" "$OMCTI" join "$T/p0.mp4" "$T/p1.mp4"
    rm -f "$T"/p[01].mp4 "$T"/p[01].mp4.sum
    # farm checks before it counts frames or queues a job (no sbatch needed)
    refused "farm, 2000 fps to .mkv" 2 "too coarse for 2000 fps" "$T/out.mkv" "$OMCTI" farm -i "$T/k.y4m" --segments 2 --workdir "$T/fw"
    [ ! -e "$T/fw/segment.sh" ] && ok || bad "farm wrote its scripts for a rate it refuses"
    rm -rf "$T/fw"
    "$OMCTI" -q -i "$T/k.y4m" -o "$T/ok.mkv" --fps 1000 2>"$T/err" && ok || bad "1000 fps to .mkv refused: $(cat "$T/err")"
    for e in mp4 nut; do
        "$OMCTI" -q -i "$T/k.y4m" -o "$T/ok.$e" 2>"$T/err"; rc=$?
        dup=$(ffprobe -v error -select_streams v -show_entries packet=pts -of csv=p=0 "$T/ok.$e" | sort | uniq -d | wc -l)
        [ $rc -eq 0 ] && [ "$dup" -eq 0 ] && ok || bad "2000 fps to .$e: exit $rc, $dup shared timestamps: $(cat "$T/err")"
    done
    # an AVI whose strh says 131096 frames a second (the codec says 25):
    # doubled, all 24 packets had pts 0, and --workers 2 blamed a hidden part
    ffmpeg -v error -y -f lavfi -i "testsrc2=s=64x48:r=25:d=0.48" -c:v mpeg4 "$T/src.avi"
    python3 - "$T/src.avi" "$T/fast.avi" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.find(b"strh")
struct.pack_into("<II", d, i + 28, 1, 131096)   # dwScale, dwRate
open(sys.argv[2], "wb").write(d)
PY
    refused "an AVI at 131096 fps to .mkv" 2 "'$T/out.mkv': Matroska stores times in 1 ms steps, too coarse for 262192 fps" "$T/out.mkv" "$OMCTI" -i "$T/fast.avi"
    refused "an AVI at 131096 fps to .mkv, --workers 2" 2 "'$T/out.mkv': Matroska stores times in 1 ms steps, too coarse for 262192 fps" "$T/out.mkv" "$OMCTI" -i "$T/fast.avi" --workers 2
    # a Matroska file whose pictures share one timestamp and which states no
    # rate: its rate is the 1 ms time base's guess, 1000 fps; doubled into
    # .mkv the refusal blamed the output ("too coarse for 2000 fps"), the
    # input has no usable timing (exit 1, as the input's other faults)
    # (two sources concatenated: the rate of neither is stated)
    ffmpeg -v error -y -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2" -f lavfi -i "testsrc2=s=64x48:r=10:d=0.2" \
        -filter_complex "[0][1]concat=n=2:v=1,setpts=0" -fps_mode passthrough -c:v ffv1 -g 1 "$T/eq.mkv"
    refused "pictures at one time, no rate stated, to .mkv" 1 "'$T/eq.mkv': its timestamps do not advance and it states no frame rate, so its timing is unknown (give it a rate first, e.g. ffmpeg -r 25 -i '$T/eq.mkv' -c:v ffv1 timed.mkv)$" "$T/out.mkv" "$OMCTI" -i "$T/eq.mkv"
    refused "pictures at one time, no rate stated, to .mkv, --workers 2" 1 "'$T/eq.mkv': its timestamps do not advance" "$T/out.mkv" "$OMCTI" -i "$T/eq.mkv" --workers 2
    # a rate chosen with --fps that the container cannot hold is the command
    # line's, whatever the input's timing (it blamed the input, exit 1)
    refused "pictures at one time, --fps 2000 to .mkv" 2 "'$T/out.mkv': Matroska stores times in 1 ms steps, too coarse for 2000 fps" "$T/out.mkv" "$OMCTI" -i "$T/eq.mkv" --fps 2000
    # into y4m the guessed rate fits: converted, with a warning that names it
    if "$OMCTI" -i "$T/eq.mkv" -o "$T/eq.y4m" 2>"$T/err" &&
        grep -q "^omcti: warning: '$T/eq.mkv': its timestamps do not advance and it states no frame rate; it is read at 1000.000 fps" "$T/err"; then
        ok
    else
        bad "pictures at one time, no rate stated, to .y4m: no warning: $(cat "$T/err")"
    fi
    rm -f "$T/eq.y4m"
    # a frame longer than MP4's 2^31 - 1 ticks (was "the mp4 muxer refused it")
    refused "--fps 1/1000000 to .mp4" 2 "MP4 stores a frame's duration in at most 2^31 - 1 steps" "$T/out.mp4" "$OMCTI" -i "$T/in.y4m" --fps 1/1000000
    refused "--fps 1/1000000 to .mp4, --workers 2" 2 "MP4 stores a frame's duration in at most 2^31 - 1 steps" "$T/out.mp4" "$OMCTI" -i "$T/in.y4m" --fps 1/1000000 --workers 2
    # Ogg holds Theora and VP8 only (its muxer said "refused it" at the header)
    refused "--codec libx264 to .ogv" 2 "'$T/out.ogv': the ogv container cannot hold h264 video" "$T/out.ogv" "$OMCTI" -i "$T/in.y4m" --codec libx264
    refused "--codec mjpeg to .y4m (FFmpeg input)" 2 "is y4m, raw pictures" "$T/out.y4m" "$OMCTI" -i "$T/src.avi" --codec mjpeg
    rm -f "$T"/ok.*
else
    skipped "FFmpeg rows (built without FFmpeg, or no ffmpeg CLI or python3)"
fi

echo "rate_limits_test: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
