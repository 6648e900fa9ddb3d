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
# The stream stalls after a few frames until the run's temporary file exists
# (the output is open then; a fixed wait lost the race under the sanitizers);
# the file appears; then the stream ends and the run must keep its result aside.
appears_meanwhile() {   # NAME OUTPUT [omcti options]
    local name=$1 out=$2; shift 2
    local base=${out##*/}
    rm -f "$out" "$T/.${base%.*}".omcti-*
    { head -c $((HDR + 4 * FRAME)) "$T/s.y4m"
      for _ in $(seq 600); do ls "$T/.${base%.*}".omcti-* >/dev/null 2>&1 && break; sleep 0.05; done
      echo PRECIOUS > "$out"
      tail -c +$((HDR + 4 * FRAME + 1)) "$T/s.y4m"; } |
        "$OMCTI" -q -i - -o "$out" "$@" 2>"$T/err" &
    local pid=$!
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

# --- item 10: a header that promises a huge picture costs nothing until a frame --
if [ -z "${OMCTI_SANITIZED:-}" ]; then
    for stream in 'YUV4MPEG2 W8192 H8192 F25:1\n' 'YUV4MPEG2 W8192 H8192 F25:1\nFRAME\nabc'; do
        # (without meson's MALLOC_PERTURB_, which writes every page malloc gives)
        kb=$(env -u MALLOC_PERTURB_ python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[2:], input=sys.argv[1].encode().decode("unicode_escape").encode(),
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$stream" "$OMCTI" -i - -o -)
        [ "$kb" -lt 200000 ] && ok || bad "header-only stream '$stream': max RSS $kb KiB before any frame"
    done
fi

# --- item 8: SIGINT / SIGTERM while blocked on a pipe -----------------------
# stops within a second (two under the sanitizers), exit 130, nothing left
limit=1.0; [ -n "${OMCTI_SANITIZED:-}" ] && limit=2.0
stops() {   # NAME SIGNAL PID T0 OUTPUT
    local name=$1 sig=$2 pid=$3 out=$5
    local t0; t0=$(date +%s.%N)
    kill -"$sig" "$pid"; wait "$pid"; local rc=$?
    local dt; dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
    [ $rc -eq 130 ] && ok || bad "$name: exit $rc, wanted 130: $(head -c 300 "$T/err")"
    # awk, not bc: the GPU machine has no bc
    awk -v d="$dt" -v l="$limit" 'BEGIN { exit !(d < l) }' && ok || bad "$name: took ${dt}s to stop"
    if [ "$out" != - ]; then
        [ ! -e "$out" ] && ! ls "$T"/.*omcti-* >/dev/null 2>&1 && ok ||
            bad "$name: partial output left: $(ls -a "$T" | grep omcti)"
    fi
}
"$Y4M" gen 320 240 60 > "$T/big.y4m"
"$OMCTI" -i - -o "$T/sig.y4m" < <(head -c $((HDR + 3 * FRAME)) "$T/s.y4m"; sleep 20) 2>"$T/err" &
pid=$!; sleep 1; stops "SIGINT, stalled upstream, output open" INT $pid 0 "$T/sig.y4m"
"$OMCTI" -i - -o "$T/sig.y4m" < <(sleep 20) 2>"$T/err" &
pid=$!; sleep 1; stops "SIGTERM, stalled upstream, no header yet" TERM $pid 0 "$T/sig.y4m"
# omcti keeps SIGHUP ignored where it was (under nohup, as FFmpeg does), so the row runs it
# with the default action restored: the test itself may run under nohup.
env --default-signal=HUP "$OMCTI" -i - -o "$T/sig.y4m" < <(head -c $((HDR + 3 * FRAME)) "$T/s.y4m"; sleep 20) 2>"$T/err" &
pid=$!; sleep 1; stops "SIGHUP (the terminal closed), output open" HUP $pid 0 "$T/sig.y4m"
# under nohup (SIGHUP ignored when it starts) it goes on
nohup "$OMCTI" -q -i - -o "$T/nohup.y4m" < <(head -c $((HDR + 3 * FRAME)) "$T/s.y4m"; sleep 2; tail -c +$((HDR + 3 * FRAME + 1)) "$T/s.y4m") >/dev/null 2>"$T/err" &
pid=$!; sleep 1; kill -HUP $pid; wait $pid; rc=$?
[ $rc -eq 0 ] && [ -s "$T/nohup.y4m" ] && ok || bad "SIGHUP under nohup: exit $rc: $(head -c 300 "$T/err")"
"$OMCTI" -q -i "$T/big.y4m" -o - > >(sleep 20) 2>"$T/err" &
pid=$!; sleep 1.5; stops "SIGTERM, stalled downstream" TERM $pid 0 -
"$OMCTI" -q -i - -o - < <(head -c $((HDR + 3 * FRAME)) "$T/s.y4m"; sleep 20) > >(sleep 20) 2>"$T/err" &
pid=$!; sleep 1; stops "SIGINT, pipe to pipe" INT $pid 0 -

# --- item 7: inputs that are pipes by path, read once, never reopened -------
"$OMCTI" -q -i "$T/s.y4m" -o "$T/ref.y4m" 2>"$T/err" || bad "reference run: $(cat "$T/err")"
frames_of() { tail -n +2 "$1"; }   # the frames, not the header
"$OMCTI" -q -i <(cat "$T/s.y4m") -o "$T/p1.y4m" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && cmp -s <(frames_of "$T/ref.y4m") <(frames_of "$T/p1.y4m") && ok ||
    bad "-i <(cat s.y4m): exit $rc: $(head -c 300 "$T/err")"
cat "$T/s.y4m" | "$OMCTI" -q -i /dev/stdin -o "$T/p2.y4m" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && cmp -s <(frames_of "$T/ref.y4m") <(frames_of "$T/p2.y4m") && ok ||
    bad "-i /dev/stdin (a pipe): exit $rc: $(head -c 300 "$T/err")"
mkfifo "$T/fifo"
cat "$T/s.y4m" > "$T/fifo" &
"$OMCTI" -q -i "$T/fifo" -o "$T/p3.y4m" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && cmp -s <(frames_of "$T/ref.y4m") <(frames_of "$T/p3.y4m") && ok ||
    bad "-i FIFO: exit $rc: $(head -c 300 "$T/err")"
wait
if have_ffmpeg_cli; then
    ffmpeg -v error -y -f lavfi -i testsrc=size=96x64:rate=24 -f lavfi -i sine=f=440 -t 1 \
        -c:v libx264 -pix_fmt yuv420p -c:a aac "$T/a.mkv" 2>/dev/null ||
        ffmpeg -v error -y -f lavfi -i testsrc=size=96x64:rate=24 -f lavfi -i sine=f=440 -t 1 \
            -c:v mpeg4 -c:a mp2 "$T/a.mkv"
    "$OMCTI" -q -i "$T/a.mkv" -o "$T/pm-ref.y4m" 2>"$T/err"
    "$OMCTI" -q -i <(cat "$T/a.mkv") -o "$T/pm.y4m" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && cmp -s "$T/pm-ref.y4m" "$T/pm.y4m" && ok ||
        bad "-i <(cat a.mkv): exit $rc: $(head -c 300 "$T/err")"
    cat "$T/a.mkv" | "$OMCTI" -i /dev/stdin -o "$T/pm.mkv" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && grep -q "audio of a pipe cannot be copied" "$T/err" && ok ||
        bad "mkv on /dev/stdin: exit $rc: $(head -c 300 "$T/err")"
    # Ctrl-C while FFmpeg waits on a stalled pipe (in open, then mid-stream)
    "$OMCTI" -q -i <(head -c 3000 "$T/a.mkv"; sleep 20) -o "$T/sig.mkv" 2>"$T/err" &
    pid=$!; sleep 1; stops "SIGINT, FFmpeg input stalled in its header" INT $pid 0 "$T/sig.mkv"
    "$OMCTI" -q -i <(cat "$T/a.mkv"; sleep 20) -o "$T/sig.mkv" 2>"$T/err" &
    pid=$!; sleep 2; stops "SIGINT, FFmpeg input stalled mid-stream" INT $pid 0 "$T/sig.mkv"
fi

# --- item 12: a legal 254-byte output name; names and file content printed raw --
long=$(printf 'n%.0s' $(seq 250))
for ext in y4m mkv; do
    [ $ext = mkv ] && [ "$HAVE_FFMPEG" != 1 ] && continue
    for w in 1 2; do
        "$OMCTI" -q -i "$T/s.y4m" -o "$T/$long.$ext" --workers $w 2>"$T/err"; rc=$?
        [ $rc -eq 0 ] && [ -s "$T/$long.$ext" ] && ok ||
            bad "254-byte name .$ext --workers $w: exit $rc: $(head -c 100 "$T/err")"
        rm -f "$T/$long.$ext"
    done
done
raw_free() {   # NAME: stderr holds no control byte but the newlines ending lines
    if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$T/err"; then
        bad "$1: control bytes printed: $(od -c "$T/err" | head -5)"
    else ok; fi
    one_line "$1" ""
}
"$OMCTI" -i "$T/no"$'\e[2J\nomcti: fake'".y4m" -o "$T/x.y4m" 2>"$T/err"
raw_free "missing input named with escape and newline"
printf 'YUV4MPEG2 W16 H16 F25:1 C\033[2J\r\n' | "$OMCTI" -i - -o - 2>"$T/err" >/dev/null
raw_free "control bytes in a y4m header"
printf 'YUV4MPEG2 W16 H16 F25:1\nFRAME\n' > "$T/e"$'\a\e]0;title\a'"vil.y4m"
"$OMCTI" -i "$T/e"$'\a\e]0;title\a'"vil.y4m" -o "$T/x.mkv" 2>"$T/err" >/dev/null
raw_free "a truncated input whose name holds BEL and OSC"

# --- item 11: pieces of mixed reorder delay join (short pieces have no B-frames) --
if have_ffmpeg_cli; then
    "$Y4M" gen 96 64 6 > "$T/six.y4m"
    for ext in mkv mp4 ts; do
        for w in 2 3 4 5 6; do
            "$OMCTI" -q -i "$T/six.y4m" -o "$T/six.$ext" --workers $w -y 2>"$T/err"; rc=$?
            n=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
                -of csv=p=0 "$T/six.$ext" 2>/dev/null | head -1)
            d=$(ffmpeg -v error -i "$T/six.$ext" -f null - 2>&1 | head -c 200)
            [ $rc -eq 0 ] && [ "$n" = 12 ] && [ -z "$d" ] && ok ||
                bad "six frames --workers $w to .$ext: exit $rc, $n frames, $d $(head -c 200 "$T/err")"
        done
    done
fi

# --- item 12: --segment onto an existing piece without -y keeps its checksum ---
"$OMCTI" -q -i "$T/s.y4m" -o "$T/piece.y4m" --segment 0/2 2>"$T/err"
sum=$(ls "$T"/piece.y4m*.sum 2>/dev/null | head -1)
if [ -n "$sum" ]; then
    cp "$sum" "$T/sum.before"
    "$OMCTI" -q -i "$T/s.y4m" -o "$T/piece.y4m" --segment 0/2 2>"$T/err"; rc=$?
    [ $rc -ne 0 ] && cmp -s "$sum" "$T/sum.before" && ok ||
        bad "--segment over an existing piece without -y: exit $rc, checksum $(ls "$sum" 2>&1)"
    one_line "--segment over an existing piece" "already exists"
else
    bad "--segment wrote no checksum file"
fi

# --- item 12: damage inside a Matroska file is not called truncation ---------
if have_ffmpeg_cli; then
    ffmpeg -v error -y -f lavfi -i testsrc=size=160x120:rate=25 -t 8 -c:v mpeg4 -g 25 "$T/m.mkv"
    python3 - "$T/m.mkv" "$T/mid.mkv" "$T/cut.mkv" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read()); n = len(d)
open(sys.argv[3], "wb").write(d[:n * 2 // 3])
for i in range(n // 2, n // 2 + n // 8): d[i] ^= 0xff
open(sys.argv[2], "wb").write(d)
PY
    "$OMCTI" -q -y -i "$T/mid.mkv" -o "$T/mid.y4m" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && grep -q "damaged" "$T/err" && ! grep -q "truncated" "$T/err" && ok ||
        bad "damage mid-file: exit $rc: $(cat "$T/err")"
    "$OMCTI" -q -y -i "$T/cut.mkv" -o "$T/cut.y4m" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && grep -q "truncated" "$T/err" && ok || bad "truncated file: exit $rc: $(cat "$T/err")"
    # an intact file whose sound outlasts its 6 pictures by 1.8 s: the
    # pictures are counted by the video track's own duration (Matroska's
    # DURATION tag), not the file's ("6 pictures read of about 51")
    ffmpeg -v error -y -f lavfi -i testsrc=size=64x48:rate=25 -frames 6 -c:v ffv1 "$T/six.mkv"
    ffmpeg -v error -y -i "$T/six.mkv" -f lavfi -i sine=d=2 -c:v copy -c:a aac "$T/long_audio.mkv"
    "$OMCTI" -q -y -i "$T/long_audio.mkv" -o "$T/la.y4m" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && [ ! -s "$T/err" ] && ok || bad "audio longer than the video: exit $rc: $(cat "$T/err")"
fi

# --- item 12: packets the decoder rejects: --workers converts what a plain run does --
# pieces_equal IN PREFIX WHOLE NAME: 7 --segment pieces of IN (T/PREFIXi.y4m)
# joined give the single run's output WHOLE
pieces_equal() {
    local in=$1 pre=$2 whole=$3 name=$4 pieces="" rc=0 i
    for i in 0 1 2 3 4 5 6; do
        "$OMCTI" -q -y -i "$in" -o "$T/$pre$i.y4m" --segment $i/7 2>"$T/err" || { rc=$?; break; }
        pieces="$pieces $T/$pre$i.y4m"
    done
    [ $rc -eq 0 ] && "$OMCTI" join -q -y -o "$T/${pre}j.y4m" $pieces 2>>"$T/err" && cmp -s "$whole" "$T/${pre}j.y4m" && ok ||
        bad "$name, 7 pieces joined: exit $rc, not the plain run's output: $(grep -v warning "$T/err")"
}
# garble IN OUT: 16 bytes garbled inside every 40th packet from the 30th (headers intact)
garble() {
    python3 - "$1" "$2" <<'PY'
import json, subprocess, sys
d = bytearray(open(sys.argv[1], "rb").read())
pk = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                "packet=pos,size", "-of", "json", sys.argv[1]], capture_output=True, text=True).stdout)["packets"]
for p in pk[30::40]:
    pos = int(p["pos"])
    for i in range(pos + 8, pos + 24): d[i] ^= 0xa5
open(sys.argv[2], "wb").write(d)
PY
}
if have_ffmpeg_cli && ffmpeg -v error -y -f lavfi -i testsrc=size=160x120:rate=25 -t 8 -c:v libx264 \
        -pix_fmt yuv420p -g 50 -bf 2 "$T/hb.mkv" 2>/dev/null; then
    garble "$T/hb.mkv" "$T/pk.mkv"
    "$OMCTI" -q -i "$T/pk.mkv" -o "$T/pk1.y4m" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && grep -q "could not be decoded" "$T/err" && ok || bad "damaged packets, plain run: exit $rc: $(cat "$T/err")"
    # FFmpeg's own messages ("[h264 @ 0x...]") only when asked for, with
    # the same pictures either way
    if grep -q "@ 0x" "$T/err"; then bad "damaged packets: FFmpeg's log without --ffmpeg-log: $(cat "$T/err")"; else ok; fi
    "$OMCTI" -q --ffmpeg-log -i "$T/pk.mkv" -o "$T/pkl.y4m" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && grep -q "^\[h264 @ 0x" "$T/err" && cmp -s "$T/pk1.y4m" "$T/pkl.y4m" && ok ||
        bad "damaged packets, --ffmpeg-log: exit $rc, no FFmpeg line or other pictures: $(head -3 "$T/err")"
    for w in 2 3; do
        "$OMCTI" -q -i "$T/pk.mkv" -o "$T/pk$w.y4m" --workers $w 2>"$T/err"; rc=$?
        [ $rc -eq 0 ] && cmp -s "$T/pk1.y4m" "$T/pk$w.y4m" && ok ||
            bad "damaged packets, --workers $w: exit $rc, not the plain run's output: $(grep -v warning "$T/err")"
    done
fi
# The same where the motion search's history matters (y4mtool's moving
# content at 640x360): a picture that did not decode leaves its number
# unused in every worker, so the search restarts its chain at the same
# pictures as the plain run.
if have_ffmpeg_cli && "$Y4M" gen 640 360 200 25 1 > "$T/g.y4m" &&
        ffmpeg -v error -y -i "$T/g.y4m" -c:v libx264 -pix_fmt yuv420p -g 50 -bf 2 "$T/hg.mkv" 2>/dev/null; then
    garble "$T/hg.mkv" "$T/pg.mkv"
    "$OMCTI" -q -i "$T/pg.mkv" -o "$T/pg1.y4m" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && grep -q "could not be decoded" "$T/err" && ok || bad "damaged packets 640x360, plain run: exit $rc: $(cat "$T/err")"
    for w in 2 3 4; do
        "$OMCTI" -q -i "$T/pg.mkv" -o "$T/pg$w.y4m" --workers $w 2>"$T/err"; rc=$?
        [ $rc -eq 0 ] && cmp -s "$T/pg1.y4m" "$T/pg$w.y4m" && ok ||
            bad "damaged packets 640x360, --workers $w: exit $rc, not the plain run's output: $(grep -v warning "$T/err")"
    done
    # 7 pieces: the last one starts at a key frame that did not decode (the
    # whole run conceals from the pictures before it; the piece decodes
    # from the first picture instead of failing)
    pieces_equal "$T/pg.mkv" pp "$T/pg1.y4m" "damaged packets 640x360"
    rm -f "$T"/pg*.y4m "$T"/pp*.y4m "$T"/pp*.y4m.sum "$T/g.y4m"
fi

# --- pictures that do not decode at the start keep their slots ------------
# A first key frame that does not decode (or a recording cut inside a GOP)
# loses the pictures up to the next key frame. The video still starts at its
# first packet's time: those slots hold the first picture that decodes, so a
# 6 s input gives 6 s of video, and the whole run gives the frames of
# --workers (which count from the index's first timestamp).
if have_ffmpeg_cli && ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi \
        -i sine=frequency=440 -t 6 -c:v libx264 -pix_fmt yuv420p -g 50 -bf 2 -c:a aac \
        "$T/kf.mkv" 2>/dev/null; then
    python3 - "$T/kf.mkv" "$T/kf0.mkv" <<'PY'
import json, subprocess, sys
d = bytearray(open(sys.argv[1], "rb").read())
pk = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                "packet=pos", "-of", "json", sys.argv[1]], capture_output=True, text=True).stdout)["packets"]
pos = int(pk[0]["pos"])
for i in range(pos + 4, pos + 8): d[i] ^= 0xa5   # after the block's header, the first NAL's length
open(sys.argv[2], "wb").write(d)
PY
    "$OMCTI" -q -i "$T/kf0.mkv" -o "$T/kf1.y4m" 2>"$T/err"; rc=$?
    n=$(ffprobe -v error -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$T/kf1.y4m")
    [ $rc -eq 0 ] && grep -q "warning" "$T/err" && [ "$n" = 300 ] && ok ||
        bad "first key frame lost: exit $rc, $n frames (wanted 300): $(cat "$T/err")"
    "$OMCTI" -q -i "$T/kf0.mkv" -o "$T/kf2.y4m" --workers 2 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && cmp -s "$T/kf1.y4m" "$T/kf2.y4m" && ok ||
        bad "first key frame lost, --workers 2: exit $rc, not the plain run's output: $(grep -v warning "$T/err")"
    "$OMCTI" -q -i "$T/kf0.mkv" -o "$T/kf.mkv.out.mkv" 2>"$T/err"; rc=$?
    v=$(ffprobe -v error -select_streams v -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$T/kf.mkv.out.mkv")
    [ $rc -eq 0 ] && [ "$v" = 300 ] && ok || bad "first key frame lost, with audio: exit $rc, $v frames (wanted 300)"
    rm -f "$T"/kf*
fi

# --- a file that lacks pictures (a cluster lost): pieces over frame slots --
# The demuxer skips a damaged Matroska cluster: the index has a hole, and the
# whole run places the pictures after it by their timestamps. --workers and
# --segment plan over the same slots and read the index entries in theirs
# (they went by frame numbers: fewer frames, another picture at each slot).
if have_ffmpeg_cli && [ -f "$T/hb.mkv" ]; then
    python3 - "$T/hb.mkv" "$T/hole.mkv" <<'PY'
import json, subprocess, sys
d = bytearray(open(sys.argv[1], "rb").read())
pk = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                "packet=pos", "-of", "json", sys.argv[1]], capture_output=True, text=True).stdout)["packets"]
pos = int(pk[70]["pos"])
for i in range(pos, pos + 4): d[i] ^= 0xa5   # the block's header: the demuxer loses its cluster
open(sys.argv[2], "wb").write(d)
PY
    "$OMCTI" -q -i "$T/hole.mkv" -o "$T/ho1.y4m" 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && grep -q "pictures are missing" "$T/err" && ok ||
        bad "a lost cluster: exit $rc, no warning of missing pictures: $(cat "$T/err")"
    "$OMCTI" -q -i "$T/hole.mkv" -o "$T/ho3.y4m" --workers 3 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && cmp -s "$T/ho1.y4m" "$T/ho3.y4m" && ok ||
        bad "a lost cluster, --workers 3: exit $rc, not the plain run's output: $(grep -v warning "$T/err")"
    pieces_equal "$T/hole.mkv" hp "$T/ho1.y4m" "a lost cluster"
    rm -f "$T"/ho*.y4m "$T"/hp*.y4m "$T"/hp*.y4m.sum "$T/hole.mkv"
fi

# --- a playlist dressed as a video reads no other file (issue 13 leftover) --
# An ffconcat list or an HLS playlist named .mp4 would make FFmpeg open the
# files it names (here a "secret" beside it): refused with one line, no output.
if have_ffmpeg_cli; then
    ffmpeg -v error -y -f lavfi -i testsrc=size=64x48:rate=25 -frames 6 -c:v ffv1 "$T/secret.mkv"
    printf 'ffconcat version 1.0\nfile secret.mkv\n' > "$T/concat.mp4"
    printf '#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nsecret.mkv\n#EXT-X-ENDLIST\n' > "$T/hls.mp4"
    for kind in concat hls; do
        "$OMCTI" -q -i "$T/$kind.mp4" -o "$T/$kind-out.y4m" 2>"$T/err"; rc=$?
        [ $rc -eq 1 ] && ok || bad "$kind playlist: exit $rc, wanted 1"
        # FFmpeg 7.1.x no longer probes a playlist named .mp4 as hls: unreadable
        if [ $kind = hls ] && grep -q 'not a video file FFmpeg can read' "$T/err"; then
            one_line "$kind playlist" "$kind.mp4': not a video file FFmpeg can read"
        else
            one_line "$kind playlist" "$kind.mp4': a $kind file, which names other files"
        fi
        [ ! -e "$T/$kind-out.y4m" ] && ok || bad "$kind playlist: an output was written"
    done
fi

# --- a local file whose name reads as a URL is that file, never the network --
# "http://127.0.0.1:9/x.mkv" relative to a folder "http:" is a local file;
# FFmpeg would connect to port 9 (nothing listens: "Connection refused").
if [ "$HAVE_FFMPEG" = 1 ]; then
    mkdir -p "$T/http:/127.0.0.1:9"
    "$Y4M" gen 64 48 6 > "$T/url.y4m"
    "$OMCTI" -q -i "$T/url.y4m" -o "$T/http:/127.0.0.1:9/x.mkv" --lossless 2>"$T/err" ||
        bad "URL-like name: cannot make the clip: $(head -c 300 "$T/err")"
    abs=$(realpath "$OMCTI")
    (cd "$T" && "$abs" -q -i 'http://127.0.0.1:9/x.mkv' -o url-out.y4m 2>"$T/err"); rc=$?
    [ $rc -eq 0 ] && [ -s "$T/url-out.y4m" ] && ok ||
        bad "URL-like local name: exit $rc: $(head -c 300 "$T/err")"
    # a URL that is no local file: one line that says why it is not fetched
    (cd "$T" && "$abs" -i 'https://127.0.0.1:9/none.mkv' -o url-none.y4m 2>"$T/err"); rc=$?
    [ $rc -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ ! -e "$T/url-none.y4m" ] &&
        grep -q "^omcti: cannot open 'https://127.0.0.1:9/none.mkv': No such file or directory (omcti reads local files and pipes; a URL is not fetched: download it first)$" "$T/err" && ok ||
        bad "a URL: exit $rc: $(head -c 300 "$T/err")"
fi

# --- -y onto a FIFO, a device or a socket never replaces the node ----------
# A FIFO (or /dev/null) is written in place like a pipe; a socket is refused.
# So by --workers (whose y4m was filled in place through a temporary file,
# and whose parts were joined into one) and by join: both renamed a regular
# file over the FIFO, which nobody then wrote (as root, -o /dev/null -y
# --workers 2 replaced /dev/null itself).
for ext in y4m mkv; do
    [ $ext = mkv ] && [ "$HAVE_FFMPEG" != 1 ] && continue
    "$OMCTI" -q -y -i "$T/s.y4m" -o "$T/pc0.$ext" --segment 0/2 && "$OMCTI" -q -y -i "$T/s.y4m" -o "$T/pc1.$ext" --segment 1/2 ||
        bad "pieces ($ext) for the FIFO rows"
    for how in plain workers join; do
        rm -f "$T/fifo.$ext" "$T/fifo-got.$ext"; mkfifo "$T/fifo.$ext"
        cat "$T/fifo.$ext" > "$T/fifo-got.$ext" &
        cpid=$!
        case $how in
            plain)   timeout 60 "$OMCTI" -q -y -i "$T/s.y4m" -o "$T/fifo.$ext" 2>"$T/err" ;;
            workers) timeout 60 "$OMCTI" -q -y -i "$T/s.y4m" -o "$T/fifo.$ext" --workers 2 2>"$T/err" ;;
            join)    timeout 60 "$OMCTI" join -q -y -o "$T/fifo.$ext" "$T/pc0.$ext" "$T/pc1.$ext" 2>"$T/err" ;;
        esac; rc=$?
        # the reader ends at the writer's end of file; one left blocked on a
        # FIFO that nobody opened (it was replaced) is stopped
        for _ in $(seq 20); do kill -0 $cpid 2>/dev/null || break; sleep 0.1; done
        kill $cpid 2>/dev/null; wait $cpid 2>/dev/null
        [ $rc -eq 0 ] && ok || bad "-y onto a FIFO ($ext, $how): exit $rc: $(head -c 300 "$T/err")"
        [ -p "$T/fifo.$ext" ] && ok || bad "-y onto a FIFO ($ext, $how): the FIFO was replaced"
        [ -s "$T/fifo-got.$ext" ] && ok || bad "-y onto a FIFO ($ext, $how): nothing came out of it"
        [ $how = plain ] && cp "$T/fifo-got.$ext" "$T/fifo-plain.$ext"
        [ $ext = y4m ] && { cmp -s "$T/fifo-plain.y4m" "$T/fifo-got.y4m" && ok ||
            bad "-y onto a FIFO ($how): not the output of a plain run"; }
    done
    ls -d "$T"/.fifo*omcti* "$T"/.pc*omcti* >/dev/null 2>&1 && bad "-y onto a FIFO ($ext): temporaries left: $(ls -a "$T" | grep omcti)" || ok
done
"$OMCTI" -q -y -i "$T/s.y4m" -o "$T/s2.y4m" && cmp -s "$T/s2.y4m" "$T/fifo-plain.y4m" && ok ||
    bad "-y onto a FIFO: not the output a file gets"
# join stops when a signal asks, as a conversion does: its copy went on to
# the end and exited 0, and stdio retried a write blocked on a FIFO that
# had taken part of the data (here until the reader went away, exit 1)
rm -f "$T/fifo.y4m"; mkfifo "$T/fifo.y4m"
{ head -c 1000 >/dev/null; sleep 20; } < "$T/fifo.y4m" &
rpid=$!
"$OMCTI" join -q -y -o "$T/fifo.y4m" "$T/pc0.y4m" "$T/pc1.y4m" 2>"$T/err" &
pid=$!; sleep 1; stops "join into a FIFO, SIGTERM, stalled downstream" TERM $pid 0 -
one_line "join, SIGTERM" "interrupted; the incomplete output was removed"
kill $rpid 2>/dev/null; wait $rpid 2>/dev/null
# The same for an encoded output, plain and joined: FFmpeg's I/O retried the
# interrupted write until the FIFO's reader went away (18.7 s here)
if [ "$HAVE_FFMPEG" = 1 ]; then
    "$OMCTI" -q -y -i "$T/big.y4m" -o "$T/bpc0.mkv" --lossless --segment 0/2 &&
        "$OMCTI" -q -y -i "$T/big.y4m" -o "$T/bpc1.mkv" --lossless --segment 1/2 ||
        bad "lossless pieces for the stalled-FIFO rows"
    for how in plain join; do
        rm -f "$T/fifo.mkv"; mkfifo "$T/fifo.mkv"
        { head -c 1000 >/dev/null; sleep 20; } < "$T/fifo.mkv" &
        rpid=$!
        case $how in
            plain) "$OMCTI" -q -y -i "$T/big.y4m" -o "$T/fifo.mkv" --lossless 2>"$T/err" & ;;
            join)  "$OMCTI" join -q -y -o "$T/fifo.mkv" "$T/bpc0.mkv" "$T/bpc1.mkv" 2>"$T/err" & ;;
        esac
        pid=$!; sleep 1.5; stops "an encoded output ($how) into a FIFO, SIGTERM, stalled downstream" TERM $pid 0 -
        one_line "an encoded output ($how) into a stalled FIFO, SIGTERM" "interrupted; the incomplete output was removed"
        kill $rpid 2>/dev/null; wait $rpid 2>/dev/null
    done
fi
if [ -w /dev/null ] && [ -c /dev/null ]; then
    "$OMCTI" -q -y -i "$T/s.y4m" -o /dev/null 2>"$T/err"; rc=$?
    [ -c /dev/null ] && ok || bad "-y onto /dev/null replaced it (exit $rc)"
fi
if python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/sock.y4m" 2>/dev/null; then
    "$OMCTI" -q -y -i "$T/s.y4m" -o "$T/sock.y4m" 2>"$T/err"; rc=$?
    [ $rc -ne 0 ] && [ -S "$T/sock.y4m" ] && ok || bad "-y onto a socket: exit $rc, socket kept: $([ -S "$T/sock.y4m" ] && echo yes || echo no)"
    one_line "-y onto a socket" "it is a socket, not a file"
fi

echo "hostile_io_test: $pass passed, $fail failed"
[ $fail -eq 0 ]
