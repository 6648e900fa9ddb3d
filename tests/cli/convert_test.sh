#!/usr/bin/env bash
# End-to-end tests of `omcti` conversion through the real program.
# usage: convert_test.sh OMCTI Y4MTOOL HAVE_FFMPEG SAMPLES_DIR
set -u
OMCTI=$1 Y4M=$2 HAVE_FFMPEG=$3 SAMPLES=${4:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/omcti-cli-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect() { if eval "$2"; then ok; else bad "$1 ($2)"; fi; }

# run NAME EXPECTED_EXIT CMD... : runs, checks the exit code, keeps stderr in $T/err
run() {
    local name=$1 want=$2; shift 2
    "$@" 2>"$T/err"; local rc=$?
    if [ "$want" = nonzero ]; then
        [ $rc -ne 0 ] && ok || bad "$name: exit $rc, wanted non-zero"
    else
        [ $rc -eq "$want" ] && ok || { bad "$name: exit $rc, wanted $want: $(head -c 300 "$T/err")"; }
    fi
}
# one_line_error NAME NEEDLE: stderr is one line starting with "omcti:" and containing NEEDLE
one_line_error() {
    local lines; lines=$(grep -c . "$T/err")
    [ "$lines" -eq 1 ] && grep -q "^omcti: .*$2" "$T/err" && ok || bad "$1: stderr '$(cat "$T/err")' is not one line with '$2'"
}

"$Y4M" gen 176 144 10 > "$T/in.y4m"
"$Y4M" gen 35 19 6 30000 1001 > "$T/odd.y4m"

# --- progress into a log (stderr not a terminal): a line of its own every
# --stats-period seconds and a last one with the final count; none by
# default on a short run (10 s), none with -q ---
"$Y4M" gen 352 288 30 > "$T/prog.y4m"
run "progress log" 0 "$OMCTI" -y -i "$T/prog.y4m" -o "$T/prog_out.y4m" --stats-period 0.001
expect "progress log: lines of their own ($(grep -c '^frame ' "$T/err") lines)" \
    "[ \"\$(grep -c '^frame [0-9]*  [0-9.]* fps  elapsed [0-9]*s$' \"$T/err\")\" -ge 2 ] && ! grep -q \$'\\r' \"$T/err\""
expect "progress log: the last line counts every frame, once" \
    "[ \"\$(grep '^frame ' \"$T/err\" | tail -1 | cut -d' ' -f2)\" = 60 ] && [ \"\$(grep -c '^frame 60 ' \"$T/err\")\" = 1 ]"
run "progress log, default period" 0 "$OMCTI" -y -i "$T/prog.y4m" -o "$T/prog_out.y4m"
expect "progress log: none on a short run by default" "! grep -q '^frame ' \"$T/err\""
run "progress log, quiet" 0 "$OMCTI" -q -y -i "$T/prog.y4m" -o "$T/prog_out.y4m" --stats-period 0.001
expect "progress log: none with -q" "[ ! -s \"$T/err\" ]"
run "progress log, period 0" 0 "$OMCTI" -y -i "$T/prog.y4m" -o "$T/prog_out.y4m" --stats-period 0
expect "progress log: none with --stats-period 0" "! grep -q '^frame ' \"$T/err\""
run "--stats-period -1" 2 "$OMCTI" -i "$T/prog.y4m" -o "$T/prog_bad.y4m" --stats-period -1
one_line_error "--stats-period -1" "stats-period: -1 is out of range"
# --- on a terminal (util-linux script(1) gives the run a pty): one line
# redrawn in place every 0.25 s, its last draw counting every frame, then a
# newline before the summary; none with -q. A full search of +-64 on one
# thread makes the run long enough (about 1.4 s on 2 cores) to be redrawn ---
if script --version 2>&1 | grep -q util-linux; then
    "$Y4M" gen 352 288 60 > "$T/prog_tty.y4m"
    script -qec "'$OMCTI' -y -i '$T/prog_tty.y4m' -o '$T/prog_out.y4m' --threads 1 --search full --range 64" \
        /dev/null </dev/null >"$T/tty" 2>&1
    draws=$(head -n 1 "$T/tty" | grep -o $'\rframe [0-9]*  ' | wc -l)
    expect "progress on a terminal: redrawn in place ($draws draws on one line)" "[ $draws -ge 2 ]"
    expect "progress on a terminal: the last draw counts every frame, then a newline and the summary" \
        "head -n 1 \"$T/tty\" | grep -q \$'\\rframe 120  [0-9.]* fps  elapsed [0-9]*s   \\r\$' &&
         sed -n 2p \"$T/tty\" | grep -q '^omcti: 60 frames in, 120 out'"
    script -qec "'$OMCTI' -q -y -i '$T/prog_tty.y4m' -o '$T/prog_out.y4m'" /dev/null </dev/null >"$T/tty" 2>&1
    expect "progress on a terminal: none with -q" "[ ! -s \"$T/tty\" ]"
    rm -f "$T/prog_tty.y4m"
fi
rm -f "$T/prog.y4m" "$T/prog_out.y4m"

# --- threads = 0 means the CPUs this process may use (its affinity), not the host's ---
if command -v taskset >/dev/null && [ "$(nproc --all)" -gt 1 ]; then
    taskset -c 0 "$OMCTI" bench -i "$T/in.y4m" --frames 3 --search diamond --json >"$T/bench.json" 2>"$T/err"
    expect "bench under taskset -c 0: one thread count" \
        "[ \"\$(grep -o '\"threads\": *[0-9]*' '$T/bench.json' | sort -u | tr -d ' ')\" = '\"threads\":1' ]"
fi

# --- OpenMP's wait policy: passive unless the environment chose one ---
# (libgomp shows what it took with OMP_DISPLAY_ENV: the spin count before a
# waiting thread sleeps, 0 when passive; the last display is the program's)
spins() {   # spins [VAR=VALUE]
    env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose "$@" "$OMCTI" --version 2>&1 >/dev/null |
        sed -n "s/.*GOMP_SPINCOUNT *= *'\([0-9]*\)'.*/\1/p" | tail -1
}
if "$OMCTI" --version | grep -q "OpenMP: yes" && [ -n "$(spins)" ]; then
    expect "OpenMP threads sleep when they wait (passive)" "[ \"\$(spins)\" = 0 ]"
    expect "OpenMP wait policy the user set is kept" "[ \"\$(spins OMP_WAIT_POLICY=active)\" != 0 ]"
else
    echo "note: the OpenMP runtime does not show its spin count (not libgomp): wait policy check skipped"
fi

# --- 2x with repeat and blend: frame count, rate, originals bit-exact ---
for m in repeat blend; do
    run "2x $m" 0 "$OMCTI" -q -i "$T/in.y4m" -o "$T/$m.y4m" --method $m
    read -r w h fn fd n < <("$Y4M" info "$T/$m.y4m")
    expect "2x $m frames" "[ $n -eq 20 ]"
    expect "2x $m rate" "[ $fn/$fd = 50/1 ]"
    for k in 0 3 9; do
        expect "2x $m original $k bit-exact" "\"$Y4M\" same \"$T/in.y4m\" $k \"$T/$m.y4m\" $((2 * k))"
    done
done
expect "repeat copies the previous frame" "\"$Y4M\" same \"$T/in.y4m\" 4 \"$T/repeat.y4m\" 9"
expect "blend is not a copy" "! \"$Y4M\" same \"$T/in.y4m\" 4 \"$T/blend.y4m\" 9"
expect "last original held" "\"$Y4M\" same \"$T/in.y4m\" 9 \"$T/repeat.y4m\" 19"

# odd size, NTSC rate: 30000/1001 doubled is 60000/1001
run "odd size" 0 "$OMCTI" -q -i "$T/odd.y4m" -o "$T/odd2.y4m" --method blend
read -r w h fn fd n < <("$Y4M" info "$T/odd2.y4m")
expect "odd size kept" "[ ${w}x$h = 35x19 ]"
expect "60000/1001" "[ $fn/$fd = 60000/1001 ]"
expect "odd frames" "[ $n -eq 12 ]"

# --slowmo 4: 4n frames at the same rate
run "slowmo" 0 "$OMCTI" -q -i "$T/in.y4m" -o "$T/slow.y4m" --method blend --slowmo 4
read -r w h fn fd n < <("$Y4M" info "$T/slow.y4m")
expect "slowmo frames" "[ $n -eq 40 ]"
expect "slowmo rate" "[ $fn/$fd = 25/1 ]"
expect "slowmo original" "\"$Y4M\" same \"$T/in.y4m\" 5 \"$T/slow.y4m\" 20"

# --fps 60 from 25: ceil(10 * 60 / 25) = 24 frames
run "fps 60" 0 "$OMCTI" -q -i "$T/in.y4m" -o "$T/f60.y4m" --method blend --fps 60
read -r w h fn fd n < <("$Y4M" info "$T/f60.y4m")
expect "fps frames" "[ $n -eq 24 ]"
expect "fps rate" "[ $fn/$fd = 60/1 ]"
expect "fps: output 12 is original 5" "\"$Y4M\" same \"$T/in.y4m\" 5 \"$T/f60.y4m\" 12"

# pipes: y4m on stdin and stdout
"$OMCTI" -q -i - -o - --method repeat < "$T/in.y4m" > "$T/pipe.y4m" 2>"$T/err"
expect "pipe exit" "[ $? -eq 0 ]"
expect "pipe equals file" "cmp -s \"$T/pipe.y4m\" \"$T/repeat.y4m\""

# --- errors: one line, non-zero exit, no output file ---
run "missing input" 1 "$OMCTI" -i "$T/nope.y4m" -o "$T/x.y4m"
one_line_error "missing input" "nope.y4m.*No such file"
"$Y4M" gen 32 32 1 > "$T/one.y4m"
run "one frame" 1 "$OMCTI" -i "$T/one.y4m" -o "$T/x.y4m"
one_line_error "one frame" "only one video frame"
expect "no output after failure" "[ ! -e \"$T/x.y4m\" ]"
run "exists without -y" 1 "$OMCTI" -i "$T/in.y4m" -o "$T/repeat.y4m"
one_line_error "exists" "already exists"
run "bad factor" 2 "$OMCTI" -i "$T/in.y4m" -o "$T/x.y4m" --factor 0
one_line_error "bad factor" "factor"
run "bad method" 2 "$OMCTI" -i "$T/in.y4m" -o "$T/x.y4m" --method magic
one_line_error "bad method" "unknown method"
head -c 5000 "$T/in.y4m" > "$T/trunc.y4m"
run "truncated" 1 "$OMCTI" -i "$T/trunc.y4m" -o "$T/x.y4m"
one_line_error "truncated" "truncated"
expect "no output after truncation" "! ls \"$T\" | grep -q '^x\\.y4m\\|omcti-'"
run "help" 0 "$OMCTI" --help
# -y, -q and the like are not segment options: their own heading before them
"$OMCTI" --help | awk '/^[A-Z][a-z]*.*:$/ { head = $0 } /^  -y / { print head }' | grep -qx "General:" &&
    ok || bad "--help lists -y under '$("$OMCTI" --help | awk '/^[A-Z][a-z]*.*:$/ { head = $0 } /^  -y / { print head }')'"
run "version" 0 "$OMCTI" --version

# --- FFmpeg containers ---
if [ "$HAVE_FFMPEG" = 1 ] && command -v ffprobe >/dev/null && command -v ffmpeg >/dev/null; then
    probe() { ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames,r_frame_rate,pix_fmt -of default=nw=1 "$1"; }
    # x264 holds its lookahead's frames, about 3 bytes a pixel each: above
    # 4K the lookahead shrinks with the picture (40 x 4K / size, at least
    # 10); at 4K and below it is x264's own 40
    "$Y4M" gen 4096 2304 2 > "$T/big.y4m"
    run "x264 above 4K" 0 "$OMCTI" -q -y -i "$T/big.y4m" -o "$T/big.mp4" --method blend
    expect "x264 above 4K: lookahead 35" "[ \"\$(grep -a -o 'rc_lookahead=[0-9]*' \"$T/big.mp4\")\" = rc_lookahead=35 ]"
    run "x264 at CIF" 0 "$OMCTI" -q -y -i "$T/in.y4m" -o "$T/small.mp4" --method blend
    expect "x264 at CIF: lookahead 40" "[ \"\$(grep -a -o 'rc_lookahead=[0-9]*' \"$T/small.mp4\")\" = rc_lookahead=40 ]"
    rm -f "$T/big.y4m" "$T/big.mp4" "$T/small.mp4"
    ffmpeg -v error -f lavfi -i "testsrc2=s=176x144:r=30000/1001:d=2" -f lavfi -i "sine=f=440:d=2" \
        -shortest -c:v ffv1 -c:a flac "$T/av.mkv"
    run "mkv lossless 2x" 0 "$OMCTI" -q -i "$T/av.mkv" -o "$T/av2.mkv" --method blend --lossless
    p=$(probe "$T/av2.mkv")
    expect "mkv frames" "grep -q nb_read_frames=120 <<<\"$p\""
    # (Matroska stores nanosecond durations and FFmpeg 5.1 reads 60000/1001
    # back as 19001/317, so the exact rate is checked on the mp4 below.)
    expect "audio kept" "[ \"\$(ffprobe -v error -select_streams a -show_entries stream=codec_name -of csv=p=0 \"$T/av2.mkv\")\" = flac ]"
    d_in=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$T/av.mkv")
    d_out=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$T/av2.mkv")
    expect "duration kept ($d_in vs $d_out)" "awk -v a=$d_in -v b=$d_out 'BEGIN{exit !(a-b < 0.05 && b-a < 0.05)}'"
    # originals bit-exact: even output frames equal the input frames
    ffmpeg -v error -i "$T/av.mkv" -map 0:v -f framemd5 "$T/in.md5"
    ffmpeg -v error -i "$T/av2.mkv" -map 0:v -vf "select='not(mod(n\,2))'" -fps_mode passthrough -f framemd5 "$T/out.md5"
    expect "lossless originals bit-exact" "diff -q <(grep -v '^#' \"$T/in.md5\" | awk -F, '{print \$NF}') <(grep -v '^#' \"$T/out.md5\" | awk -F, '{print \$NF}') >/dev/null"
    run "mp4 default codec" 0 "$OMCTI" -q -i "$T/av.mkv" -o "$T/av2.mp4" --method repeat
    expect "mp4 rate" "grep -q r_frame_rate=60000/1001 <<<\"\$(probe \"$T/av2.mp4\")\""
    expect "mp4 is h264" "[ \"\$(ffprobe -v error -select_streams v -show_entries stream=codec_name -of csv=p=0 \"$T/av2.mp4\")\" = h264 ]"
    # the source's colour description reaches encoded outputs; none is invented
    colors() { ffprobe -v error -select_streams v:0 -show_entries stream=color_space,color_transfer,color_primaries -of csv=p=0 "$1"; }
    ffmpeg -v error -i "$T/in.y4m" -c:v ffv1 -color_primaries bt709 -color_trc bt709 -colorspace bt709 "$T/bt709.mkv"
    expect "colour test input tagged" "[ \"\$(colors \"$T/bt709.mkv\")\" = bt709,bt709,bt709 ]"
    run "bt709 to mp4" 0 "$OMCTI" -q -i "$T/bt709.mkv" -o "$T/bt709.mp4"
    expect "bt709 kept in mp4 ($(colors "$T/bt709.mp4"))" "[ \"\$(colors \"$T/bt709.mp4\")\" = bt709,bt709,bt709 ]"
    run "bt709 to mkv lossless" 0 "$OMCTI" -q -i "$T/bt709.mkv" -o "$T/bt709-2.mkv" --lossless
    expect "bt709 kept in mkv" "[ \"\$(colors \"$T/bt709-2.mkv\")\" = bt709,bt709,bt709 ]"
    expect "untagged stays untagged ($(colors "$T/av2.mp4"))" "! colors \"$T/av2.mp4\" | grep -q bt"
    run "slowmo drops audio" 0 "$OMCTI" -i "$T/av.mkv" -o "$T/slow.mkv" --slowmo 2 --method repeat --lossless
    expect "slowmo notice" "grep -q 'audio is dropped' \"$T/err\""
    expect "slowmo no audio" "[ -z \"\$(ffprobe -v error -select_streams a -show_entries stream=index -of csv=p=0 \"$T/slow.mkv\")\" ]"
    # libsvtav1 prints to stderr past FFmpeg's log level: the program keeps
    # it at warnings too, unless the user set SVT_LOG (skipped where the
    # libavcodec the program links has no libsvtav1)
    env -u SVT_LOG "$OMCTI" -q -i "$T/in.y4m" -o "$T/av1.mkv" --codec libsvtav1 2>"$T/err"
    av1_rc=$?
    if grep -q "no encoder named" "$T/err"; then
        echo "note: no libsvtav1 in this FFmpeg: its log level check skipped"
    else
        expect "av1 through libsvtav1 (exit $av1_rc: $(head -c 200 "$T/err"))" "[ $av1_rc -eq 0 ]"
        expect "libsvtav1's info lines hidden" "! grep -q 'Svt\[info\]' \"$T/err\""
        run "av1, SVT_LOG set" 0 env SVT_LOG=3 "$OMCTI" -q -y -i "$T/in.y4m" -o "$T/av1.mkv" --codec libsvtav1
        expect "libsvtav1's log level the user set is kept" "grep -q 'Svt\[info\]' \"$T/err\""
        rm -f "$T/av1.mkv"
    fi
    # a film at 24 fps stored at 30 (every 5th picture repeated): one note
    # saying so and how to drop the repeats; none for the same motion at 30
    # fps, nor with -q
    ffmpeg -v error -f lavfi -i "testsrc2=s=176x144:r=24:d=1.5" -vf fps=30 -c:v ffv1 "$T/film30.mkv"
    ffmpeg -v error -f lavfi -i "testsrc2=s=176x144:r=30:d=1.5" -c:v ffv1 "$T/video30.mkv"
    run "repeats 2x" 0 "$OMCTI" -i "$T/film30.mkv" -o "$T/film60.mkv" --method blend --lossless
    expect "repeats note ($(grep -c 'repeats every' "$T/err") lines)" \
        "[ \"\$(grep -c \"repeats every 5th picture (24.000 fps of motion in a 30.000 fps file).*decimate=cycle=5\" \"$T/err\")\" = 1 ]"
    run "no repeats 2x" 0 "$OMCTI" -i "$T/video30.mkv" -o "$T/video60.mkv" --method blend --lossless
    expect "no repeats, no note" "! grep -q 'repeats every' \"$T/err\""
    run "repeats quiet" 0 "$OMCTI" -q -y -i "$T/film30.mkv" -o "$T/film60.mkv" --method blend --lossless
    expect "quiet: no note" "[ ! -s \"$T/err\" ]"
    # --workers: the worker that reads from the start scans, the run notes once
    run "repeats --workers 3" 0 "$OMCTI" -y -i "$T/film30.mkv" -o "$T/film60.mkv" --method blend --lossless --workers 3
    expect "repeats note with --workers ($(grep -c 'repeats every' "$T/err") lines)" \
        "[ \"\$(grep -c 'repeats every 5th picture' \"$T/err\")\" = 1 ]"
    # a short film in 2 shares: both workers read from the start (the
    # overlap), the first scans: one note
    ffmpeg -v error -i "$T/film30.mkv" -frames:v 26 -c:v ffv1 "$T/film26.mkv"
    run "repeats --workers 2, 26 pictures" 0 "$OMCTI" -y -i "$T/film26.mkv" -o "$T/film60.mkv" --method blend --lossless --workers 2
    expect "one repeats note with --workers 2 ($(grep -c 'repeats every' "$T/err") lines)" \
        "[ \"\$(grep -c 'repeats every 5th picture' \"$T/err\")\" = 1 ]"
    # a telecined film (3:2 pulldown: some pictures one field old, one new)
    # repeats no picture: no repeats note (decimate alone would leave mixed
    # fields), one telecine note; none for interlaced video (both fields
    # move at every picture)
    ffmpeg -v error -f lavfi -i "testsrc2=s=176x144:r=24:d=2" -vf telecine=pattern=23 -c:v ffv1 "$T/telecined.mkv"
    run "telecined 2x" 0 "$OMCTI" -y -i "$T/telecined.mkv" -o "$T/film60.mkv" --method blend --lossless
    expect "telecined: no repeats note" "! grep -q 'repeats every' \"$T/err\""
    expect "telecined: one telecine note ($(grep -c 'looks telecined' "$T/err") lines)" \
        "[ \"\$(grep -c \"looks telecined (3:2 pulldown.*fieldmatch,decimate\" \"$T/err\")\" = 1 ]"
    ffmpeg -v error -f lavfi -i "testsrc2=s=176x144:r=60:d=2" -vf tinterlace=mode=interleave_top -c:v ffv1 "$T/interlaced.mkv"
    run "interlaced 2x" 0 "$OMCTI" -y -i "$T/interlaced.mkv" -o "$T/film60.mkv" --method blend --lossless
    expect "interlaced: no telecine note" "! grep -q 'looks telecined\|repeats every' \"$T/err\""
    # --workers refuses an output it may not write before it converts: one
    # line, no note after a whole conversion
    : > "$T/exists.mkv"
    run "--workers, output exists" 1 "$OMCTI" -i "$T/film30.mkv" -o "$T/exists.mkv" --method blend --lossless --workers 2
    one_line_error "--workers, output exists" "already exists"
    run "--workers, output in a missing folder" 1 "$OMCTI" -y -i "$T/film30.mkv" -o "$T/nodir/x.mkv" --method blend --lossless --workers 2
    one_line_error "--workers, output in a missing folder" "cannot write '.*nodir/x.mkv': No such file or directory"
    cp "$T/film26.mkv" "$T/self.mkv"
    run "--workers, output is the input" nonzero "$OMCTI" -y -i "$T/self.mkv" -o "$T/self.mkv" --method blend --lossless --workers 2
    one_line_error "--workers, output is the input" "also an input"
    expect "--workers: the input is kept" "cmp -s \"$T/film26.mkv\" \"$T/self.mkv\""
    rm -f "$T/film30.mkv" "$T/video30.mkv" "$T/film60.mkv" "$T/video60.mkv" "$T/film26.mkv" \
          "$T/telecined.mkv" "$T/interlaced.mkv" "$T/exists.mkv" "$T/self.mkv"
    echo "not a video" > "$T/text.mkv"
    run "text file" 1 "$OMCTI" -i "$T/text.mkv" -o "$T/x.mkv"
    one_line_error "text file" "text.mkv"
    # the shared real clips, 2x with repeat and blend
    if [ -n "$SAMPLES" ] && [ -d "$SAMPLES" ]; then
        for clip in "$SAMPLES"/*.mkv; do
            name=$(basename "$clip" .mkv)
            n_in=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$clip")
            for m in repeat blend; do
                run "$name $m" 0 "$OMCTI" -q -i "$clip" -o "$T/$name-$m.mkv" --method $m --lossless
                n_out=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$T/$name-$m.mkv")
                want=$(( n_in * 2 ))
                expect "$name $m frames ($n_out vs $want)" "[ \"$n_out\" = $want ]"
                rm -f "$T/$name-$m.mkv"
            done
        done
    fi
fi

echo "convert_test: $pass passed, $fail failed"
[ $fail -eq 0 ]
