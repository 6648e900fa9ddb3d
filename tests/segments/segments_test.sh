#!/usr/bin/env bash
# `omcti --segment I/N` + `omcti join` give the single run's frames bit for
# bit; --workers N (the --devices code path on the CPU) too; errors are one
# line and leave nothing under the output name.
# usage: segments_test.sh OMCTI Y4MTOOL HAVE_FFMPEG SAMPLES_DIR
set -u
OMCTI=$(realpath "$1") Y4M=$(realpath "$2") HAVE_FFMPEG=$3 SAMPLES=${4:-}
# (absolute: some checks run in another folder)
T=$(mktemp -d "${TMPDIR:-/tmp}/omcti-seg-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect() { if eval "$2"; then ok; else bad "$1 ($2)"; fi; }
one_line_error() {   # NAME NEEDLE: $T/err is one line "omcti: ...NEEDLE..."
    [ "$(grep -c . "$T/err")" -eq 1 ] && grep -q "^omcti: .*$2" "$T/err" && ok ||
        bad "$1: stderr '$(cat "$T/err")' is not one line with '$2'"
}
# Fewer frames under the sanitizers (several times slower). One thread per
# run: results do not depend on it, and on a loaded 2-core machine two
# OpenMP threads per short run cost more than they give.
F=48; [ -n "${OMCTI_SANITIZED:-}" ] && F=30

# segments IN EXT N OPTS...: converts the N segments of IN and joins them
# into $T/joined.EXT; 0 when every step succeeded.
segments() {
    local in=$1 ext=$2 n=$3; shift 3
    local pieces=() i
    for ((i = 0; i < n; i++)); do
        "$OMCTI" -q -y -i "$in" -o "$T/p$i.$ext" --segment "$i/$n" --threads 1 "$@" 2>"$T/err" ||
            { cat "$T/err" >&2; return 1; }
        pieces+=("$T/p$i.$ext")
    done
    "$OMCTI" join -q -y -o "$T/joined.$ext" "${pieces[@]}" 2>"$T/err" || { cat "$T/err" >&2; return 1; }
    rm -f "${pieces[@]}" "$T"/p*.sum
}

# --- y4m (both builds): the joined file equals the single run's, byte for byte
"$Y4M" gen 176 144 $F > "$T/in.y4m"
"$OMCTI" -q -i "$T/in.y4m" -o "$T/whole.y4m" --threads 2
for n in 1 2 3 7; do
    expect "y4m N=$n runs" "segments '$T/in.y4m' y4m $n"
    expect "y4m N=$n bit-exact" "cmp -s '$T/whole.y4m' '$T/joined.y4m'"
done
"$OMCTI" -q -i "$T/in.y4m" -o "$T/whole60.y4m" --fps 60 --frames 31
expect "y4m --fps 60 --frames 31, N=3" "segments '$T/in.y4m' y4m 3 --fps 60 --frames 31 && cmp -s '$T/whole60.y4m' '$T/joined.y4m'"

# the checksum file beside a piece
"$OMCTI" -q -i "$T/in.y4m" -o "$T/s1.y4m" --segment 1/3
expect "piece checksum written" "grep -q '^fnv1a64 ' '$T/s1.y4m.sum' && grep -q 'segment=1/3' '$T/s1.y4m.sum'"
# the options key names the output revision (pieces of an older omcti, whose
# defaults or pictures differ, have another options hash: not reused, not joined)
expect "piece key names the output revision" "grep -q '^key .* out-rev=7 ' '$T/s1.y4m.sum'"

# --workers: the in-process path of --devices, with CPU workers
"$OMCTI" -q -i "$T/in.y4m" -o "$T/w3.y4m" --workers 3 2>"$T/err"
expect "--workers 3 runs" "[ $? -eq 0 ]"
expect "--workers 3 bit-exact" "cmp -s '$T/whole.y4m' '$T/w3.y4m'"
expect "--workers leaves no parts" "[ -z \"\$(ls -A '$T' | grep omcti-parts)\" ]"
"$OMCTI" -q -i "$T/in.y4m" -o "$T/s1w.y4m" --segment 1/3 --workers 2
expect "--segment 1/3 --workers 2 = --segment 1/3" "cmp -s '$T/s1.y4m' '$T/s1w.y4m'"
expect "--workers leaves no temporary file" "[ -z \"\$(ls -A '$T' | grep omcti-)\" ]"

# --devices: rejected for the CPU engine; no GPU -> one clear line; with
# GPUs the result is the CPU's, bit for bit (the determinism contract).
"$OMCTI" -q -i "$T/in.y4m" -o "$T/d.y4m" --engine cpu --devices 0,1 2>"$T/err"
expect "--devices with cpu: usage error" "[ $? -eq 2 ]"
one_line_error "--devices with cpu" "needs --engine cuda"
if "$OMCTI" -q -i "$T/in.y4m" -o "$T/d.y4m" --engine cuda --devices all 2>"$T/err"; then
    expect "--devices all (GPU) bit-exact" "cmp -s '$T/whole.y4m' '$T/d.y4m'"
else
    one_line_error "--devices all without a GPU" "CUDA"
    expect "--devices: no output" "[ ! -e '$T/d.y4m' ]"
fi

# a stopping signal names itself in a piece and with --workers, as in a
# single run: the io layer wakes its threads with SIGINT once a stop is
# asked, and that wake signal turned "stopped by SIGUSR1" (Slurm's warning
# before a task's time limit) into "interrupted"
"$Y4M" gen 352 288 400 > "$T/long.y4m"
for mode in "--workers 2" "--segment 1/2"; do
    for sig in USR1 XCPU; do
        # shellcheck disable=SC2086
        "$OMCTI" -q -i "$T/long.y4m" -o "$T/sig.y4m" --engine cpu --threads 1 --search full \
            $mode 2>"$T/err" &
        pid=$!
        # (stopped as soon as its temporary output is there: a short run
        # may end before a plain sleep does; the signal comes on SIGCONT)
        for _ in $(seq 500); do ls -A "$T" | grep -q '^\.sig\.' && break; sleep 0.01; done
        kill -STOP $pid; kill -$sig $pid; kill -CONT $pid; wait $pid; rc=$?
        expect "SIG$sig $mode: exit 130, named" "[ $rc -eq 130 ] && grep -q 'stopped by SIG$sig.*; the incomplete output was removed' '$T/err' || { cat '$T/err' >&2; false; }"
        expect "SIG$sig $mode: nothing left" "[ ! -e '$T/sig.y4m' ] && [ -z \"\$(ls -A '$T' | grep '^\.sig\.\|omcti-parts')\" ]"
    done
done
rm -f "$T/long.y4m"

# errors: a failing segment leaves neither piece nor checksum
# (a natural failure mid-run: the file-size limit is hit while writing)
(ulimit -f 20; exec "$OMCTI" -q -i "$T/in.y4m" -o "$T/f1.y4m" --segment 1/3) 2>"$T/err"
expect "failing segment exits 1" "[ $? -eq 1 ]"
one_line_error "failing segment" "File too large"
expect "failing segment: no piece" "[ -z \"\$(ls -A '$T' | grep f1)\" ]"
"$Y4M" gen 64 48 5 > "$T/short.y4m"
"$OMCTI" -q -i "$T/short.y4m" -o "$T/x.y4m" --segment 0/9 --fps 10 2>"$T/err"
expect "too many segments" "[ $? -ne 0 ]"
one_line_error "too many segments" "use at most"
# the largest count that works (halving said 3 where 4, 5 and 6 work)
"$Y4M" gen 64 48 6 > "$T/six.y4m"
"$OMCTI" -q -i "$T/six.y4m" -o "$T/x.y4m" --segment 0/7 2>"$T/err"
one_line_error "7 segments of 6 frames" "use at most 6 segments"
"$OMCTI" -q -i "$T/six.y4m" -o "$T/x.y4m" --segment 5/6 && expect "6 segments of 6 frames run" true ||
    bad "6 segments of 6 frames"
rm -f "$T"/x.y4m*
"$Y4M" gen 64 48 6 > "$T/other.y4m"
"$OMCTI" -q -i "$T/other.y4m" -o "$T/o.y4m" --segment 0/2
"$OMCTI" -q -i "$T/in.y4m" -o "$T/i.y4m" --segment 1/2
"$OMCTI" join -o "$T/mix.y4m" "$T/o.y4m" "$T/i.y4m" 2>"$T/err"
expect "join of different pieces fails" "[ $? -eq 1 ]"
one_line_error "join mismatch" "is not a piece of the conversion"
expect "failed join leaves nothing" "[ -z \"\$(ls -A '$T' | grep mix)\" ]"
"$OMCTI" join -o "$T/o.y4m" "$T/o.y4m" 2>"$T/err"
expect "join over a piece refused" "[ $? -ne 0 ]"
one_line_error "join over a piece" "also an input"
"$OMCTI" join -o "$T/whole.y4m" "$T/o.y4m" 2>"$T/err"
one_line_error "join over an existing file" "already exists"

# --- join checks its pieces (checksum files): order, gaps, doubles, strangers, damage ---
J=$T/j; mkdir -p "$J"
for ((i = 0; i < 12; i++)); do
    "$OMCTI" -q -i "$T/in.y4m" -o "$J/p$i.y4m" --segment "$i/12" --threads 1 || bad "piece $i/12"
done
jrow() {   # NAME NEEDLE PIECES...: join fails with one line, writes nothing
    local name=$1 needle=$2; shift 2
    timeout 60 "$OMCTI" join -q -o "$T/jn.y4m" "$@" 2>"$T/err"
    expect "$name: exit 1" "[ $? -eq 1 ]"
    one_line_error "$name" "$needle"
    expect "$name: nothing written" "[ -z \"\$(ls -A '$T' | grep jn)\" ]"
}
# a shell glob sorts p10 and p11 before p2: the pieces' own numbers decide
"$OMCTI" join -q -o "$T/jg.y4m" "$J"/p*.y4m 2>"$T/err"
expect "join, 12 pieces in glob order" "[ $? -eq 0 ] && cmp -s '$T/whole.y4m' '$T/jg.y4m'"
rev=(); for ((i = 11; i >= 0; i--)); do rev+=("$J/p$i.y4m"); done
"$OMCTI" join -q -y -o "$T/jg.y4m" "${rev[@]}" 2>"$T/err"
expect "join, 12 pieces in reverse order" "[ $? -eq 0 ] && cmp -s '$T/whole.y4m' '$T/jg.y4m'"
inorder=(); for ((i = 0; i < 12; i++)); do inorder+=("$J/p$i.y4m"); done
jrow "join, piece 5 missing" "piece 5 of 12 is missing" "${inorder[@]:0:5}" "${inorder[@]:6}"
jrow "join, last piece missing" "piece 11 of 12 is missing" "${inorder[@]:0:11}"
cp "$J/p3.y4m" "$J/copy3.y4m"; cp "$J/p3.y4m.sum" "$J/copy3.y4m.sum"
jrow "join, a piece twice" "are both piece 3 of 12" "${inorder[@]:0:4}" "$J/copy3.y4m" "${inorder[@]:4}"
jrow "join, one file twice" "are both piece 0 of 12" "${inorder[@]}" "$J/p0.y4m"
"$OMCTI" -q -i "$T/in.y4m" -o "$J/blend4.y4m" --segment 4/12 --method blend --threads 1
jrow "join, a piece with other options" "is not a piece of the conversion" "${inorder[@]:0:4}" "$J/blend4.y4m" "${inorder[@]:5}"
"$OMCTI" -q -i "$T/in.y4m" -o "$J/of13.y4m" --segment 4/13 --threads 1
jrow "join, a piece of another split" "is not a piece of the conversion" "${inorder[@]:0:4}" "$J/of13.y4m" "${inorder[@]:5}"
"$OMCTI" -q -i "$T/whole.y4m" -o "$J/other4.y4m" --segment 4/12 --threads 1
jrow "join, a piece of another input" "is not a piece of the conversion" "${inorder[@]:0:4}" "$J/other4.y4m" "${inorder[@]:5}"
cp "$J/p6.y4m" "$J/p6.keep"
head -c $(( $(stat -c %s "$J/p6.keep") / 2 )) "$J/p6.keep" > "$J/p6.y4m"
jrow "join, a half-length piece" "cut short" "${inorder[@]}"
cp "$J/p6.keep" "$J/p6.y4m"; printf 'X' | dd of="$J/p6.y4m" bs=1 seek=100 conv=notrunc status=none
jrow "join, a changed piece" "is not the piece its checksum file describes (changed" "${inorder[@]}"
cp "$J/p6.keep" "$J/p6.y4m"
mv "$J/p7.y4m.sum" "$J/p7.keep"
jrow "join, a piece without its .sum" "has no checksum file" "${inorder[@]}"
# crafted checksum files: refused with one line naming them, never trusted
sumrow() {   # NAME NEEDLE: p7.y4m.sum as given
    jrow "join, .sum $1" "$2" "${inorder[@]}"
}
sed 's/^omcti-piece 3/omcti-piece 1/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "version 1" "older omcti"
# version 2 (stop 26 and before): other pictures, and maybe no origin line
sed 's/^omcti-piece 3/omcti-piece 2/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "version 2" "written by an older omcti"
sed 's/^omcti-piece 3/omcti-piece 4/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "version 4" "(unknown version)"
sed 's/^piece 7 12/piece 7 11/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "with another count" "not a valid omcti checksum file (the frame range"
sed 's/^piece 7 12/piece 12 12/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "index past the count" "not a valid omcti checksum file (piece)"
sed 's/^piece 7 12/piece 9223372036854775807 12/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "huge index" "(piece)"
sed 's/^piece 7 12/piece -1 12/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "negative index" "(piece)"
sed 's/^range \(.*\) \(.*\)/range \1 999/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "a forged range" "the frame range"
sed 's/^frames .*/frames 99999999999999999999/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "frames overflow" "(frames)"
# the largest int64: the pieces' frame counts added up overflowed (UBSan), and join went on
sed 's/^frames .*/frames 9223372036854775807/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "frames sum overflow" "(frames)"
sed 's/^size .*/size 1x/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "size not a number" "(size)"
sed 's/^fnv1a64 .*/fnv1a64 zz/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "bad hash" "(fnv1a64)"
sed 's/^source .*/source 1 2/' "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "two-value source" "(source)"
head -c 40 "$J/p7.keep" > "$J/p7.y4m.sum"; sumrow "truncated" "not a valid omcti checksum file"
head -c 100000 /dev/urandom > "$J/p7.y4m.sum"; sumrow "random bytes" "not a valid omcti checksum file"
rm -f "$J/p7.y4m.sum"; mkfifo "$J/p7.y4m.sum"
jrow "join, a FIFO as .sum (not waited on)" "not a regular file" "${inorder[@]}"
rm -f "$J/p7.y4m.sum"
mv "$J/p7.keep" "$J/p7.y4m.sum"
"$OMCTI" join -q -o "$T/jg2.y4m" "${rev[@]}" 2>"$T/err"
expect "join after the damage is undone" "[ $? -eq 0 ] && cmp -s '$T/whole.y4m' '$T/jg2.y4m'"

# an input named OUT.sum: its checksum file would replace it (with -y it did)
cp "$T/in.y4m" "$T/src.y4m.sum"
for y in "" -y; do
    "$OMCTI" -q -i "$T/src.y4m.sum" -o "$T/src.y4m" --segment 0/2 $y 2>"$T/err"
    expect "--segment $y, the input named OUT.sum: exit 2" "[ $? -eq 2 ]"
    one_line_error "--segment $y, the input named OUT.sum" "is the input file; --segment writes the piece's checksum file there"
    expect "--segment $y, the input named OUT.sum is kept" "cmp -s '$T/in.y4m' '$T/src.y4m.sum' && [ ! -e '$T/src.y4m' ]"
done
# --segment onto an existing output without -y: fails, and keeps OUT and OUT.sum
cp "$J/p2.y4m" "$T/mine.y4m"; echo "my notes" > "$T/mine.y4m.sum"
"$OMCTI" -q -i "$T/in.y4m" -o "$T/mine.y4m" --segment 2/12 2>"$T/err"
expect "--segment over an existing output: exit 1" "[ $? -eq 1 ]"
one_line_error "--segment over an existing output" "already exists"
expect "--segment without -y keeps OUT.sum" "[ \"\$(cat '$T/mine.y4m.sum')\" = 'my notes' ] && cmp -s '$J/p2.y4m' '$T/mine.y4m'"
rm "$T/mine.y4m"
"$OMCTI" -q -i "$T/in.y4m" -o "$T/mine.y4m" --segment 2/12 2>"$T/err"
expect "--segment: a foreign OUT.sum is not replaced without -y" "[ $? -eq 1 ] && [ \"\$(cat '$T/mine.y4m.sum')\" = 'my notes' ] && [ ! -e '$T/mine.y4m' ]"
one_line_error "--segment: a foreign OUT.sum" "is not an omcti checksum file"
"$OMCTI" -q -y -i "$T/in.y4m" -o "$T/mine.y4m" --segment 2/12 2>"$T/err"
expect "--segment -y replaces it" "[ $? -eq 0 ] && grep -q '^piece 2 12$' '$T/mine.y4m.sum'"
"$OMCTI" -q -i "$T/in.y4m" -o "$T/mine2.y4m" --segment 2/12 2>"$T/err"
expect "--segment: a piece's .sum names its place" "grep -q '^omcti-piece 3$' '$T/mine2.y4m.sum' && grep -q '^range ' '$T/mine2.y4m.sum' && grep -q '^frames ' '$T/mine2.y4m.sum'"
# pieces whose names start with '-' (after --)
(cd "$J" && for i in 0 1; do "$OMCTI" -q -i "$T/in.y4m" -o "-d$i.y4m" --segment $i/2 --threads 1; done &&
    "$OMCTI" join -q -o "$T/jd.y4m" -- -d1.y4m -d0.y4m) 2>"$T/err"
expect "join -- with pieces named -d0.y4m -d1.y4m" "[ $? -eq 0 ] && cmp -s '$T/whole.y4m' '$T/jd.y4m'"
# long piece names: 241 characters (its .sum 245) work, the checksum file's
# temporary name included; 252 (its .sum 256) is refused before any work
n241=$(printf 'n%.0s' $(seq 237)).y4m n252=$(printf 'm%.0s' $(seq 248)).y4m
"$OMCTI" -q -i "$T/in.y4m" -o "$J/$n241" --segment 0/2 --threads 1 2>"$T/err"
expect "a 241-character piece name" "[ $? -eq 0 ] && [ -s '$J/$n241.sum' ]"
"$OMCTI" -q -i "$T/in.y4m" -o "$J/$n252" --segment 0/2 --threads 1 2>"$T/err"
expect "a 252-character piece name: refused" "[ $? -eq 2 ]"
one_line_error "a 252-character piece name" "too long for its checksum file"
expect "a 252-character piece name: nothing left" "[ -z \"\$(ls -A '$J' | grep -e '^\.\?m')\" ]"
# An output that appears while join writes is never replaced without -y: the
# joined result is kept under the name the error reports. Large pieces (cheap
# blend) give a window; once the temporary file is seen, join is stopped,
# the file appears, join goes on.
"$Y4M" gen 1280 720 12 > "$J/big.y4m"
for i in 0 1; do "$OMCTI" -q -i "$J/big.y4m" -o "$J/b$i.y4m" --segment $i/2 --method blend --threads 1 || bad "big piece $i"; done
python3 - "$OMCTI" "$J" 2>"$T/err" <<'PY'
import os, signal, subprocess, sys, time
omcti, d = sys.argv[1:3]
p = subprocess.Popen([omcti, "join", "-q", "-o", d + "/race.y4m", d + "/b1.y4m", d + "/b0.y4m"],
                     stderr=subprocess.PIPE)
seen = False
while p.poll() is None and not seen:
    seen = any(n.startswith(".race.omcti-") for n in os.listdir(d))
if seen:
    os.kill(p.pid, signal.SIGSTOP)
    with open(d + "/race.y4m", "w") as f: f.write("PRECIOUS\n")
    os.kill(p.pid, signal.SIGCONT)
err = p.communicate()[1].decode()
sys.stderr.write(err)
sys.exit(p.returncode if seen else 99)
PY
rc=$?
if [ $rc -eq 99 ]; then
    echo "segments: join finished before its temporary file was seen; the race check is skipped"
else
    expect "join, an output that appears meanwhile: exit 1" "[ $rc -eq 1 ]"
    expect "join, an output that appears meanwhile: not replaced" "[ \"\$(cat '$J/race.y4m')\" = PRECIOUS ]"
    one_line_error "join, an output that appears meanwhile" "appeared during the run"
    kept=$(sed -n "s/.*the result is kept as '\(.*\)'$/\1/p" "$T/err")
    expect "join, an output that appears meanwhile: the result is kept" "[ -n '$kept' ] && [ \"\$(head -c 9 '$kept')\" = YUV4MPEG2 ]"
fi
rm -rf "$J" "$T"/jg*.y4m "$T"/jd.y4m "$T"/mine*

if [ "$HAVE_FFMPEG" != 1 ]; then
    echo "segments: FFmpeg checks skipped (built without FFmpeg)"
else
    frames() { ffmpeg -v error -i "$1" -f framemd5 - | grep -v '^#' | awk -F, '{print $2, $6}'; }
    # exact: lossless FFV1, compared frame by frame (timestamp and hash)
    check_file() {   # NAME IN OPTS...
        local name=$1 in=$2; shift 2
        "$OMCTI" -q -y -i "$in" -o "$T/whole.mkv" --lossless --threads 1 "$@" || { bad "$name: single run"; return; }
        frames "$T/whole.mkv" > "$T/whole.md5"
        for n in 3 7; do
            if segments "$in" mkv $n --lossless "$@"; then
                frames "$T/joined.mkv" > "$T/joined.md5"
                expect "$name N=$n: same frames ($(wc -l < "$T/whole.md5"))" "cmp -s '$T/whole.md5' '$T/joined.md5'"
            else
                bad "$name N=$n: segments failed"
            fi
        done
    }
    # A long GOP with B-frames: every segment seeks to the key frame before
    # its overlap and decodes forward; at 80 frames the last segments of
    # N=7 start past the second key frame (50). QCIF keeps it quick.
    ffmpeg -v error -y -f lavfi -i testsrc2=size=176x144:rate=25 -frames:v 80 \
        -c:v libx264 -g 50 -bf 3 -pix_fmt yuv420p "$T/h264.mp4"
    check_file "H.264 -g 50 -bf 3" "$T/h264.mp4"
    # --workers with an encoded output: parts (encoded in parallel), joined
    "$OMCTI" -q -y -i "$T/h264.mp4" -o "$T/w.mkv" --lossless --workers 3 --threads 1 2>"$T/err"
    expect "--workers 3 to mkv runs" "[ $? -eq 0 ]"
    frames "$T/w.mkv" > "$T/w.md5"
    expect "--workers 3 to mkv: the single run's frames" "cmp -s '$T/whole.md5' '$T/w.md5'"
    expect "--workers to mkv leaves no parts" "[ -z \"\$(ls -A '$T' | grep omcti-parts)\" ]"
    # MPEG-TS has no key frame index: its seeks land after the target's key
    # frame and step back through the index (src/io/ffmpeg_decode.c ff_seek);
    # MPEG-2 with open GOPs and H.264, 120 frames, the pieces start at many
    # places between key frames
    ffmpeg -v error -y -f lavfi -i testsrc2=size=176x144:rate=25 -frames:v 120 \
        -c:v mpeg2video -g 15 -bf 2 "$T/m2.ts"
    check_file "MPEG-2 in TS -g 15 -bf 2" "$T/m2.ts"
    ffmpeg -v error -y -f lavfi -i testsrc2=size=176x144:rate=25 -frames:v 120 \
        -c:v libx264 -g 30 -bf 2 -pix_fmt yuv420p "$T/h264.ts"
    check_file "H.264 in TS -g 30 -bf 2" "$T/h264.ts"
    # one GOP for the whole TS (x264's keyint 250 on a short clip), its PTS
    # crossing the 2^33 wrap: a seek from the first picture's timestamp
    # lands past the only key frame and no picture decodes to the end;
    # --workers and every piece but the first failed ("the stream ended
    # before the picture at timestamp ... (seek failed)") instead of
    # reading from the demuxer opened again
    ffmpeg -v error -y -f lavfi -i testsrc2=size=176x144:rate=25 -frames:v 120 \
        -c:v libx264 -bf 2 -pix_fmt yuv420p -output_ts_offset 95441 "$T/gop1.ts"
    check_file "H.264 in TS, one GOP, PTS wrap" "$T/gop1.ts"
    # MPEG-PS and FLV create their streams with the first packets: the
    # demux-only pass probes them as the reader does (it failed: "the video
    # stream is not found again")
    ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 60 \
        -c:v mpeg2video -g 15 -bf 2 "$T/ps.mpg"
    ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 60 \
        -c:v libx264 -g 25 -bf 2 -pix_fmt yuv420p "$T/v.flv"
    # WebM with negative timestamps: a demuxer that was not probed shows its
    # first cluster 500 ms late (the index was off the grid: refused as a
    # variable frame rate); the demux-only pass probes it as the reader does
    webm=neg.webm
    ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 60 -c:v libvpx \
        -b:v 300k -output_ts_offset -0.5 -avoid_negative_ts disabled "$T/neg.webm" ||
        { webm=; echo "segments: no libvpx in this ffmpeg; the WebM check is skipped"; }
    # The cuts below land at fixed bytes, so their inputs must be the same
    # bytes every time: FFmpeg's MPEG-PS muxer writes bytes of memory it did
    # not set, which meson's MALLOC_PERTURB_ changes from run to run.
    ffx() { env -u MALLOC_PERTURB_ ffmpeg -v error "$@"; }
    # MPEG-PS stamps a picture only now and then; cut inside a GOP, the
    # decoder drops the first pictures (their slots are held). The index
    # fills the missing timestamps in from the decode times, so the pieces
    # go by slots as the whole run does (by picture numbers they were moved
    # by the dropped slots). AVI stamps no reference picture: its index
    # keeps none (H.264 in AVI: FFmpeg's filled-in times are off by the
    # reorder delay, which moved the pieces).
    ffx -y -f lavfi -i testsrc2=size=176x144:rate=25 -frames:v 120 \
        -c:v mpeg2video -b:v 1M -g 15 -bf 2 -f vob "$T/long.mpg"
    dd if="$T/long.mpg" of="$T/pscut.mpg" bs=2048 skip=50 2>/dev/null
    ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 60 \
        -c:v libx264 -g 25 -bf 3 -pix_fmt yuv420p "$T/h264.avi"
    ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 60 \
        -c:v mpeg4 -g 25 -bf 2 "$T/mpeg4.avi"
    # H.264 in MPEG-PS cut 26 KB in: its first key frame comes 2 s later,
    # and a piece starting before it found no picture at its timestamp
    # ("cannot seek to frame 34"); from the file's start, the first picture
    # that decodes is what the whole run holds over those slots. The cut
    # also leaves a first packet without any time, which the index skips.
    ffx -y -f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 100 -c:v libx264 \
        -b:v 2M -bf 3 -g 50 -pix_fmt yuv420p -f mpeg "$T/long264.mpg"
    dd if="$T/long264.mpg" of="$T/pscut264.mpg" bs=2048 skip=13 2>/dev/null
    # the same in MPEG-TS, cut 28 KB in ("cannot seek to frame 17")
    ffx -y -i "$T/long264.mpg" -c copy "$T/long264.ts"
    dd if="$T/long264.ts" of="$T/tscut264.ts" bs=188 skip=150 2>/dev/null
    for f in ps.mpg pscut.mpg pscut264.mpg tscut264.ts h264.avi mpeg4.avi v.flv $webm; do
        "$OMCTI" -q -y -i "$T/$f" -o "$T/fw1.y4m" 2>"$T/err"
        "$OMCTI" -q -y -i "$T/$f" -o "$T/fw2.y4m" --workers 2 2>>"$T/err"
        expect "$f --workers 2: the single run's frames" "cmp -s '$T/fw1.y4m' '$T/fw2.y4m' || { cat '$T/err' >&2; false; }"
    done
    rm -f "$T"/fw*.y4m
    if [ -f "$SAMPLES/foreman_cif.mkv" ]; then
        check_file "foreman_cif" "$SAMPLES/foreman_cif.mkv" --frames $F
    else
        echo "segments: $SAMPLES/foreman_cif.mkv not found; the sample checks are skipped"
    fi
    # lossy pieces with B-frames (x264 mp4) join by stream copy, with audio
    ffmpeg -v error -y -f lavfi -i testsrc2=size=320x240:rate=24 -f lavfi -i sine=f=440 \
        -t 2 -c:v libx264 -g 24 -bf 3 -pix_fmt yuv420p -c:a aac -shortest "$T/av.mp4"
    for i in 0 1 2; do "$OMCTI" -q -i "$T/av.mp4" -o "$T/q$i.mp4" --segment $i/3; done
    "$OMCTI" join -q -o "$T/j.mp4" --audio-from "$T/av.mp4" "$T"/q{0,1,2}.mp4 2>"$T/err"
    expect "mp4 join runs" "[ $? -eq 0 ]"
    # --audio-from another file than the pieces' input: refused, nothing written
    ffmpeg -v error -y -f lavfi -i sine=f=300 -t 3 -c:a aac "$T/other.m4a"
    "$OMCTI" join -q -o "$T/jo.mp4" --audio-from "$T/other.m4a" "$T"/q{0,1,2}.mp4 2>"$T/err"
    expect "join --audio-from another file: refused" "[ $? -eq 1 ] && grep -q 'is not the input the pieces were made from' '$T/err' && [ ! -e '$T/jo.mp4' ]"
    expect "mp4 join: 96 frames" "[ \"\$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 '$T/j.mp4')\" = 96 ]"
    expect "mp4 join: audio copied" "ffprobe -v error -select_streams a -show_entries stream=codec_name -of csv=p=0 '$T/j.mp4' | grep -q aac"
    expect "mp4 join decodes cleanly" "[ -z \"\$(ffmpeg -v error -i '$T/j.mp4' -f null - 2>&1)\" ]"
    # the same in Matroska, which keeps no decode times: the first packets of
    # each H.264 piece come without one (this join used to fail: EINVAL)
    for i in 0 1 2; do "$OMCTI" -q -i "$T/av.mp4" -o "$T/q$i.mkv" --segment $i/3; done
    "$OMCTI" join -q -o "$T/j.mkv" --audio-from "$T/av.mp4" "$T"/q{0,1,2}.mkv 2>"$T/err"
    expect "mkv (H.264) join runs" "[ $? -eq 0 ]"
    expect "mkv join: 96 frames" "[ \"\$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 '$T/j.mkv')\" = 96 ]"
    expect "mkv join decodes cleanly" "[ -z \"\$(ffmpeg -v error -i '$T/j.mkv' -f null - 2>&1)\" ]"
    "$OMCTI" join -q -o "$T/jr.mkv" --audio-from "$T/av.mp4" "$T"/q{2,0,1}.mkv 2>"$T/err"
    expect "mkv join, pieces in another order: runs" "[ $? -eq 0 ]"
    expect "mkv join, pieces in another order: the same frames" "cmp -s <(frames '$T/j.mkv') <(frames '$T/jr.mkv')"
    "$OMCTI" join -q -o "$T/jm.mkv" "$T"/q{0,2}.mkv 2>"$T/err"
    expect "mkv join, a piece missing: refused" "[ $? -eq 1 ] && [ ! -e '$T/jm.mkv' ]"
    one_line_error "mkv join, a piece missing" "piece 1 of 3 is missing"
    "$OMCTI" -q -i "$T/av.mp4" -o "$T/w.mkv" --workers 2 -y 2>"$T/err"
    expect "--workers 2 to an H.264 mkv runs" "[ $? -eq 0 ]"
    expect "--workers 2 to mkv: 96 frames" "[ \"\$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 '$T/w.mkv')\" = 96 ]"
fi

echo "segments: $pass passed, $fail failed"
[ $fail -eq 0 ]
