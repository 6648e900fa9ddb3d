#!/usr/bin/env bash
# One test per row of docs/errors.md: each bad input or condition gives the
# documented one-line message and exit code, never a crash, and never leaves
# a file (or a temporary) under the requested name.
# usage: errors_test.sh OMCTI Y4MTOOL HAVE_FFMPEG HAVE_CUDA
set -u
OMCTI=$(realpath "$1") Y4M=$(realpath "$2") HAVE_FFMPEG=$3 HAVE_CUDA=${4:-0}
# (absolute: some checks run in another folder)
T=$(mktemp -d "${TMPDIR:-/tmp}/omcti-err-XXXXXX")
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# row NAME EXIT NEEDLE CMD...: exit code, one-line "omcti: ...NEEDLE..." on stderr
# (notices are allowed before it), no crash, and no output left behind.
row() {
    local name=$1 want=$2 needle=$3; shift 3
    rm -f "$T"/out.* "$T"/.out.*
    "$@" >"$T/stdout" 2>"$T/err"; local rc=$?
    if [ $rc -ge 128 ] && [ $rc -ne 130 ]; then bad "$name: crashed (exit $rc): $(cat "$T/err")"; return; fi
    [ "$rc" -eq "$want" ] || { bad "$name: exit $rc, wanted $want: $(cat "$T/err")"; return; }
    if [ "$want" -ne 0 ]; then
        local last; last=$(grep -v '^omcti: note:\|^omcti: warning:' "$T/err")
        [ "$(printf '%s\n' "$last" | grep -c .)" -eq 1 ] || { bad "$name: not one line: $(cat "$T/err")"; return; }
        grep -q "^omcti: .*$needle" <<<"$last" || { bad "$name: '$last' lacks '$needle'"; return; }
        if ls -A "$T" | grep -q '^out\.\|^\.out\.'; then bad "$name: output left behind: $(ls -A "$T")"; return; fi
    else
        [ -z "$needle" ] || grep -q "$needle" "$T/err" || { bad "$name: stderr lacks '$needle': $(cat "$T/err")"; return; }
    fi
    ok
}
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }

"$Y4M" gen 64 48 8 > "$T/in.y4m"
"$Y4M" gen 64 48 1 > "$T/one.y4m"
printf 'YUV4MPEG2 W64 H48 F25:1 C420jpeg\n' > "$T/zero.y4m"
head -c 9000 "$T/in.y4m" > "$T/trunc.y4m"
echo "hello, this is text" > "$T/text.y4m"

# --- input ---
row "missing input"        1 "cannot open '$T/nope.mkv': No such file"  "$OMCTI" -i "$T/nope.mkv" -o "$T/out.y4m"
row "input is a directory" 1 "directory"                                 "$OMCTI" -i "$T" -o "$T/out.y4m"
# an image sequence's pattern, as FFmpeg takes it: says what to do instead
row "an image sequence pattern" 1 "cannot open '$T/img%03d.png': No such file or directory (omcti reads one video file, not an image sequence: make one first, e.g. ffmpeg -framerate 25 -i '$T/img%03d.png' -c:v ffv1 seq.mkv)" "$OMCTI" -i "$T/img%03d.png" -o "$T/out.mkv"
row "an image glob"        1 "not an image sequence: make one first, e.g. ffmpeg -framerate 25 -pattern_type glob -i" "$OMCTI" -i "$T/img-[0-9].png" -o "$T/out.mkv"
row "a pattern with a quote" 1 "make one first, e.g. ffmpeg -framerate 25 -i 'PATTERN' -c:v ffv1 seq.mkv)" "$OMCTI" -i "$T/it's%03d.png" -o "$T/out.mkv"
row "a video's name with brackets, missing" 1 "cannot open '$T/Movie \[1080p\].mkv': No such file or directory$" "$OMCTI" -i "$T/Movie [1080p].mkv" -o "$T/out.mkv"
row "a folder with a frame number, missing" 1 "cannot open '$T/img%03d/clip.mkv': No such file or directory$" "$OMCTI" -i "$T/img%03d/clip.mkv" -o "$T/out.mkv"
row "a name with % that is no pattern" 1 "cannot open '$T/100%.y4m': No such file or directory$" "$OMCTI" -i "$T/100%.y4m" -o "$T/out.y4m"
# As root the check runs as nobody, who must be able to run the program (a
# build inside a private folder, e.g. a clone under mktemp -d, is not).
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null &&
        runuser -u nobody -- "$OMCTI" --version >/dev/null 2>&1; then
    cp "$T/in.y4m" "$T/secret.y4m"; chmod 000 "$T/secret.y4m"
    row "unreadable input"  1 "Permission denied" runuser -u nobody -- "$OMCTI" -i "$T/secret.y4m" -o "$T/out.y4m"
elif [ "$(id -u)" != 0 ]; then
    cp "$T/in.y4m" "$T/secret.y4m"; chmod 000 "$T/secret.y4m"
    row "unreadable input"  1 "Permission denied" "$OMCTI" -i "$T/secret.y4m" -o "$T/out.y4m"
else skipped "unreadable input (root without runuser, or nobody cannot run $OMCTI)"; fi
row "text file as y4m"     1 "not a y4m"            "$OMCTI" -i "$T/text.y4m" -o "$T/out.y4m"
row "zero frames"          1 "has no video frames"  "$OMCTI" -i "$T/zero.y4m" -o "$T/out.y4m"
row "one frame"            1 "only one video frame" "$OMCTI" -i "$T/one.y4m" -o "$T/out.y4m"
row "truncated y4m"        1 "truncated"            "$OMCTI" -i "$T/trunc.y4m" -o "$T/out.y4m"
sed '1s/F[0-9]*:[0-9]*/F1000000000:1/' "$T/in.y4m" > "$T/fast.y4m"
# (the input's rate is the cause: exit 1, the input named)
row "an output rate past 31 bits" 1 "'$T/fast.y4m': the frame rate 1000000000/1 is too high to multiply by 3 exactly" "$OMCTI" -i "$T/fast.y4m" -o "$T/out.y4m" --factor 3
row "an output rate past 31 bits, --workers 2" 1 "'$T/fast.y4m': the frame rate 1000000000/1 is too high to multiply by 3 exactly" "$OMCTI" -i "$T/fast.y4m" -o "$T/out.y4m" --factor 3 --workers 2
row "an output rate past 31 bits, to stdout" 1 "'$T/fast.y4m': the frame rate 1000000000/1 is too high to multiply by 3 exactly" "$OMCTI" -i "$T/fast.y4m" -o - --factor 3
mkfifo "$T/in.fifo"
row "--workers on a FIFO (not waited on)" 2 "'$T/in.fifo': --workers needs an input file it can seek in, not a pipe" timeout 10 "$OMCTI" -i "$T/in.fifo" -o "$T/out.y4m" --workers 2
row "--segment on a FIFO (not waited on)" 2 "--segment needs an input file it can seek in, not a pipe" timeout 10 "$OMCTI" -i "$T/in.fifo" -o "$T/out.y4m" --segment 0/2
row "eval --methods ''"     2 "no method to score"   "$OMCTI" eval -i "$T/in.y4m" --methods ''
row "eval, an unknown option last" 2 "eval: unknown option '--bogus'" "$OMCTI" eval -i "$T/in.y4m" --bogus
row "eval --compare =x"     2 "eval: --compare needs a file (FILE or FILE=NAME), not '=x'" "$OMCTI" eval -i "$T/in.y4m" --compare =x
row "eval --block 12"       2 "eval: --block: 12 is not 8, 16 or 32$" "$OMCTI" eval -i "$T/in.y4m" --block 12
row "eval --engine bogus"   2 "eval: --engine: unknown engine 'bogus' (auto, cpu, cuda)$" "$OMCTI" eval -i "$T/in.y4m" --engine bogus
# --opt=VALUE, as the conversion takes it (it was "unknown option")
row "eval, a clip of 1 frame" 1 "eval: '$T/one.y4m' has 1 frame; eval needs at least 3" "$OMCTI" eval -i "$T/one.y4m"
row "eval --frames=2"      2 "eval: --frames: 2 is out of range (3..1073741824)$" "$OMCTI" eval -i "$T/in.y4m" --frames=2
row "eval --scd-threshold 1000" 2 "eval: --scd-threshold: 1000 is out of range (0.01..100)$" "$OMCTI" eval -i "$T/in.y4m" --scd-threshold 1000
row "eval --methods=blend --frames=5" 0 "" "$OMCTI" eval -i "$T/in.y4m" --methods=blend --frames=5
# a subcommand's notices are notes ("omcti: note: ..."), as the conversion's:
# these read "omcti: eval: ..." and "omcti: bench: ...", like errors
"$Y4M" gen 64 48 6 > "$T/short.y4m"
"$Y4M" gen 64 48 12 > "$T/in12.y4m"
row "eval --compare, a shorter file: a note" 0 "^omcti: note: eval: '$T/short.y4m' ends before frame 7; scoring frames 1..5 only$" "$OMCTI" eval -i "$T/in12.y4m" --methods blend --compare "$T/short.y4m"
if [ "$HAVE_CUDA" = 1 ] && ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
    row "bench, cuda not available: a note" 0 "^omcti: note: bench: engine cuda skipped: engine 'cuda' is not available" "$OMCTI" bench -i "$T/in.y4m" --frames 5 --threads 1 --search diamond --repeat 1 --engine cpu,cuda
else skipped "bench, cuda not available (built without CUDA, or a GPU is present)"; fi
row "eval --threads 0 (as convert)" 2 "eval: --threads: 0 is out of range (1..1024)$" "$OMCTI" eval -i "$T/in.y4m" --threads 0
row "stdin a directory"    1 "Is a directory"       sh -c '"$1" -i - -o "$2" < "$3"' sh "$OMCTI" "$T/out.y4m" "$T"
# the index of --workers and --segment refuses it as the whole run does
# (it stopped before the cut frame, and the run succeeded with fewer frames)
row "truncated y4m, --workers 2" 1 "truncated"      "$OMCTI" -i "$T/trunc.y4m" -o "$T/out.y4m" --workers 2
row "truncated y4m, --segment" 1 "truncated"        "$OMCTI" -i "$T/trunc.y4m" -o "$T/out.y4m" --segment 0/2
printf 'YUV4MPEG2 W64 H48 F25:1 C420p10\nFRAME\n' > "$T/deep.y4m"
row "10-bit y4m"           1 "not supported"        "$OMCTI" -i "$T/deep.y4m" -o "$T/out.y4m"
# interlacing other than p, t, b, m, ? (by the first letter, as FFmpeg's
# y4m demuxer reads it) is a damaged header, which FFmpeg refuses too; I?
# (unknown, mjpegtools writes it) converts; a header line that fills the
# reader's buffer is named as such, not "not a y4m stream"
for il in Iz I Ix; do
    printf 'YUV4MPEG2 W64 H48 F25:1 %s\nFRAME\n' "$il" > "$T/il.y4m"
    head -c 4608 /dev/zero >> "$T/il.y4m"
    row "y4m interlacing $il" 1 "malformed y4m header field '$il' (interlacing is Ip, It, Ib, Im or I?)" "$OMCTI" -i "$T/il.y4m" -o "$T/out.y4m"
done
for il in 'I?' Ipp; do
    { printf 'YUV4MPEG2 W64 H48 F25:1 %s\n' "$il"; for f in 1 2; do printf 'FRAME\n'; head -c 4608 /dev/zero; done; } > "$T/il.y4m"
    row "y4m interlacing $il" 0 "" "$OMCTI" -q -i "$T/il.y4m" -o "$T/out.y4m"
done
{ printf 'YUV4MPEG2 W64 H48 F25:1 X'; head -c 200000 /dev/zero | tr '\0' a; printf '\nFRAME\n'; head -c 4608 /dev/zero; } > "$T/il.y4m"
row "y4m header line of 200 kB" 1 "the y4m header line is longer than 4095 bytes" "$OMCTI" -i "$T/il.y4m" -o "$T/out.y4m"
rm -f "$T/il.y4m"
# a header can state any size: 64 megapixels at most (io_internal.h)
printf 'YUV4MPEG2 W16384 H16384 F25:1 C420jpeg\nFRAME\n' > "$T/huge.y4m"
row "y4m of 16384x16384"   1 "larger than omcti handles" "$OMCTI" -i "$T/huge.y4m" -o "$T/out.y4m"
"$Y4M" gen 17 9 4 > "$T/tiny.y4m"
row "17x9 (smaller than a block)" 0 "" "$OMCTI" -q -i "$T/tiny.y4m" -o "$T/out.y4m"
"$Y4M" gen 353 289 3 > "$T/odd.y4m"
row "353x289"              0 "" "$OMCTI" -q -i "$T/odd.y4m" -o "$T/out.y4m"
"$Y4M" gen 1 1 3 > "$T/px.y4m"
row "1x1"                  0 "" "$OMCTI" -q -i "$T/px.y4m" -o "$T/out.y4m"
if [ "$HAVE_FFMPEG" = 1 ]; then
    # a Theora file whose setup header is damaged: the Ogg page's CRC no
    # longer matches, FFmpeg drops the page and the decoder finds its setup
    # data corrupt (-1, EPERM, "Operation not permitted"), named as what it is
    if ffmpeg -v error -f lavfi -i testsrc2=s=64x48:r=25:d=1 -c:v libtheora "$T/th.ogv" 2>/dev/null; then
        python3 - "$T/th.ogv" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
j = d.find(b'\x82theora')
for k in range(j + 20, j + 60):
    d[k] ^= 0x5a
open(sys.argv[1], 'wb').write(d)
PY
        row "Theora setup header damaged" 1 "'$T/th.ogv': the theora decoder refuses the stream's setup data (Operation not permitted): a damaged file?" \
            "$OMCTI" -i "$T/th.ogv" -o "$T/out.mkv"
        rm -f "$T/th.ogv"
    fi
    # a stream FFmpeg cannot decode: the stream and what FFmpeg lacks named
    # (a raw track of a fourcc FFmpeg has no layout for was "cannot open
    # the decoder: Invalid argument"; an unknown codec named no stream)
    ffmpeg -v error -y -f lavfi -i testsrc2=s=64x48:r=25:d=0.2 -c:v rawvideo -pix_fmt yuv420p "$T/raw.mkv"
    ffmpeg -v error -y -f lavfi -i testsrc2=s=64x48:r=25:d=0.2 -c:v mpeg4 -vtag XVID "$T/x.avi"
    python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
d = open(t + '/raw.mkv', 'rb').read()
assert d.count(b'I420') == 1
open(t + '/rawq.mkv', 'wb').write(d.replace(b'I420', b'QQQQ'))
d = open(t + '/x.avi', 'rb').read()
open(t + '/unk.avi', 'wb').write(d.replace(b'XVID', b'QZQZ').replace(b'FMP4', b'QZQZ'))
PY
    row "Matroska V_UNCOMPRESSED (I420)" 0 "" "$OMCTI" -q -i "$T/raw.mkv" -o "$T/out.mkv"
    row "V_UNCOMPRESSED of an unknown fourcc" 1 "'$T/rawq.mkv': stream #0 is uncompressed video in a pixel layout FFmpeg does not know (fourcc 'QQQQ')\$" \
        "$OMCTI" -i "$T/rawq.mkv" -o "$T/out.mkv"
    row "AVI of an unknown fourcc" 1 "'$T/unk.avi': no decoder for the video codec of stream #0 (fourcc 'QZQZ'): the file names a codec FFmpeg does not know\$" \
        "$OMCTI" -i "$T/unk.avi" -o "$T/out.mkv"
    rm -f "$T/raw.mkv" "$T/rawq.mkv" "$T/x.avi" "$T/unk.avi"
    # a part of --workers fails: the message names the output, not the part
    row "--workers, a part fails" 1 "'$T/out.mkv' (worker 0): libx264 cannot encode" \
        "$OMCTI" -i "$T/px.y4m" -o "$T/out.mkv" --workers 2 --odd-size crop
    # an output whose parts' folder fits in PATH_MAX (4096) but whose parts'
    # names do not: refused in one line, the folder removed (the names were
    # cut before, and two workers' could be the same file)
    deep=$T/deep
    while [ ${#deep} -lt 3640 ]; do deep="$deep/$(printf '%0200d' 0)"; done
    deep="$deep/$(printf "%0$((3866 - ${#deep}))d" 0)"
    mkdir -p "$deep"
    "$OMCTI" -i "$T/in.y4m" -o "$deep/$(printf '%0198d' 0).mkv" --workers 2 2>"$T/err"; rc=$?
    if [ $rc -eq 1 ] && [ "$(grep -vc '^omcti: note:' "$T/err")" -eq 1 ] &&
       grep -q "too long for the parts of the workers" "$T/err" && [ -z "$(ls -A "$deep")" ]; then ok
    else bad "parts' names past PATH_MAX: exit $rc, $(ls -A "$deep"): $(head -c 300 "$T/err")"; fi
    rm -rf "$T/deep"
fi
"$Y4M" gen 40 30 4 25 1 C422 > "$T/c422.y4m"
row "4:2:2 y4m converted"  0 "processed as 8-bit 4:2:0" "$OMCTI" -i "$T/c422.y4m" -o "$T/out.y4m"

# --- output ---
row "output directory missing" 1 "cannot write '/nonexistent-omcti/out.y4m'" "$OMCTI" -i "$T/in.y4m" -o /nonexistent-omcti/out.y4m
# a path of 5000 bytes: the message keeps its end, the reason (it was cut)
long="/nonexistent-omcti/$(printf 'd%.0s' $(seq 200))"; long="$long$long$long$long$long$long$long$long$long$long"; long="$long$long/out.y4m"
row "output path of 4000 bytes" 1 "File name too long" "$OMCTI" -i "$T/in.y4m" -o "$long"
# (in the words of --workers, join and eval --plot: "is the input file" before 2026-11-28)
row "output is the input"  2 "output '$T/in.y4m' is also an input ('$T/in.y4m'); choose another name$" "$OMCTI" -i "$T/in.y4m" -o "$T/in.y4m"
# -o - with stdout redirected onto the input (>>, 1<>, a hard link): the
# stream was written after or over the pictures being read (exit 1, input damaged)
cp "$T/in.y4m" "$T/self.y4m"; ln "$T/self.y4m" "$T/self-link.y4m"
for w in "" "--segment 0/2"; do
    row "-o - appends to the input $w" 2 "(stdout) is also an input ('$T/self.y4m')" bash -c "exec \"$OMCTI\" -i \"$T/self.y4m\" -o - $w >> \"$T/self.y4m\""
    row "-o - writes over the input $w" 2 "(stdout) is also an input ('$T/self.y4m')" bash -c "exec \"$OMCTI\" -i \"$T/self.y4m\" -o - $w 1<> \"$T/self.y4m\""
    row "-o - onto a link of the input $w" 2 "(stdout) is also an input ('$T/self.y4m')" bash -c "exec \"$OMCTI\" -i \"$T/self.y4m\" -o - $w >> \"$T/self-link.y4m\""
done
cmp -s "$T/in.y4m" "$T/self.y4m" && ok || bad "-o - onto the input: the input changed"
# and -i - read from the output: -y replaced the input with the result (exit 0)
row "-i - from the output, -y" 2 "output '$T/self.y4m' is also an input (stdin, -i -)" bash -c "exec \"$OMCTI\" -i - -o \"$T/self.y4m\" -y < \"$T/self-link.y4m\""
cmp -s "$T/in.y4m" "$T/self.y4m" && ok || bad "-i - from the output: the input changed"
rm -f "$T/self.y4m" "$T/self-link.y4m"
cp "$T/in.y4m" "$T/kept.y4m"
row "-n (FFmpeg's never overwrite) on an existing output" 1 "already exists" "$OMCTI" -i "$T/in.y4m" -o "$T/kept.y4m" -n
cmp -s "$T/in.y4m" "$T/kept.y4m" && ok || bad "-n: the existing output changed"
rm -f "$T/kept.y4m"
row "--frames 1"            2 "--frames: 1 is out of range (2.." "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --frames 1
row "-n and -y"             2 "-y and -n contradict each other" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" -n -y
# an output name that is a symbolic link: to nothing, refused before the
# run (it used to run, then fail as "appeared during the run"); to a file,
# written through with -y (the link kept, as FFmpeg writes through it)
ln -s "$T/nowhere.y4m" "$T/dangling.y4m"
for w in 1 2; do
    row "output a link to nothing, --workers $w" 1 "'$T/dangling.y4m' is a symbolic link to a missing file" "$OMCTI" -i "$T/in.y4m" -o "$T/dangling.y4m" -y --workers $w
    [ -L "$T/dangling.y4m" ] && [ ! -e "$T/nowhere.y4m" ] && [ -z "$(ls -A "$T" | grep '^\.dangling')" ] && ok ||
        bad "output a link to nothing: $(ls -lA "$T")"
done
echo old > "$T/target.y4m"; ln -s "$T/target.y4m" "$T/link.y4m"
row "output a link to a file, without -y" 1 "'$T/link.y4m' already exists" "$OMCTI" -i "$T/in.y4m" -o "$T/link.y4m"
for w in 1 2; do
    "$OMCTI" -q -i "$T/in.y4m" -o "$T/link.y4m" -y --workers $w 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && [ -L "$T/link.y4m" ] && [ "$(head -c 9 "$T/target.y4m")" = YUV4MPEG2 ] && ok ||
        bad "output a link to a file, -y, --workers $w: exit $rc, $(ls -lA "$T" | grep -E 'link|target'): $(cat "$T/err")"
    echo old > "$T/target.y4m"
done
rm -f "$T/link.y4m" "$T/target.y4m" "$T/dangling.y4m"
cp "$T/in.y4m" "$T/keep.y4m"
row "output exists, no -y" 1 "already exists (use -y" "$OMCTI" -i "$T/in.y4m" -o "$T/keep.y4m"
cmp -s "$T/in.y4m" "$T/keep.y4m" && ok || bad "existing output was modified"
row "output is a directory" 1 "directory" "$OMCTI" -i "$T/in.y4m" -o "$T" -y
# A full disk, simulated with a file-size limit: the write fails, nothing is left.
row "disk full"            1 "cannot write '$T/out.y4m'" bash -c "ulimit -f 20; exec \"$OMCTI\" -i \"$T/in.y4m\" -o \"$T/out.y4m\""
row "disk full, --workers" 1 "cannot write '$T/out.y4m'" bash -c "ulimit -f 20; exec \"$OMCTI\" -i \"$T/in.y4m\" -o \"$T/out.y4m\" --workers 2"
if ls -A "$T" | grep -q 'omcti-'; then bad "disk full left a temporary"; else ok; fi
# --segment -y that fails keeps the old piece and its OUT.sum (and a link's
# target) as they were: the .sum is replaced with the piece, not before
"$OMCTI" -q -i "$T/in.y4m" -o "$T/p.y4m" --segment 0/2 && cp "$T/p.y4m.sum" "$T/p.keep" || bad "--segment 0/2 failed"
row "disk full, --segment -y" 1 "cannot write '$T/p.y4m'" bash -c "ulimit -f 20; exec \"$OMCTI\" -i \"$T/in.y4m\" -o \"$T/p.y4m\" --segment 0/2 -y"
cmp -s "$T/p.keep" "$T/p.y4m.sum" && ok || bad "disk full, --segment -y: the old OUT.sum was not kept: $(ls -l "$T"/p.y4m*)"
rm -f "$T/p.y4m.sum"; cp "$T/p.keep" "$T/p-target.sum"; ln -s p-target.sum "$T/p.y4m.sum"
row "disk full, --segment -y, OUT.sum a link" 1 "cannot write '$T/p.y4m'" bash -c "ulimit -f 20; exec \"$OMCTI\" -i \"$T/in.y4m\" -o \"$T/p.y4m\" --segment 0/2 -y"
[ -L "$T/p.y4m.sum" ] && cmp -s "$T/p.keep" "$T/p-target.sum" && ok || bad "disk full, --segment -y: the link's target was not kept: $(ls -l "$T"/p*)"
# and one that succeeds replaces it, through the link
"$OMCTI" -q -i "$T/in.y4m" -o "$T/p.y4m" --segment 0/2 -y --factor 3 2>"$T/err" && [ -L "$T/p.y4m.sum" ] &&
    grep -q 'rate=factor:3' "$T/p-target.sum" && ok || bad "--segment -y: OUT.sum not replaced through its link: $(cat "$T/err")"
rm -f "$T"/p.y4m* "$T/p.keep" "$T/p-target.sum"
if ls -A "$T" | grep -q 'omcti-'; then bad "disk full, --segment -y left a temporary"; else ok; fi
# A reader that goes away: stdout closed early gives an error, not a hang.
"$OMCTI" -i "$T/in.y4m" -o - 2>"$T/err" | head -c 10 >/dev/null; rc=${PIPESTATUS[0]}
[ "$rc" -eq 1 ] && grep -q "cannot write 'stdout'" "$T/err" && ok || bad "closed pipe: exit $rc: $(cat "$T/err")"

# --- options ---
row "factor 0"             2 "--factor"         "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --factor 0
row "negative range"       2 "--range"          "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --range -3
row "unknown method"       2 "unknown method"   "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --method fancy
row "unknown engine"       2 "unknown engine"   "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --engine tpu
row "unknown search"       2 "unknown search"   "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --search spiral
row "unknown option"       2 "unknown option"   "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --speed 9
# a likely typo is named, in every subcommand (farm's own options among the
# conversion's: a misspelt --segments said "--segments N is required")
row "a typo of --fps"      2 "unknown option '--fsp'; did you mean '--fps'? (see omcti --help)" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --fsp 50
row "FFmpeg's -r"          2 "unknown option '-r'; did you mean '--fps'?" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" -r 50
row "eval, a typo"         2 "eval: unknown option '--methdos'; did you mean '--methods'? (see omcti eval --help)$" "$OMCTI" eval -i "$T/in.y4m" --methdos blend
row "bench, a typo"        2 "bench: unknown option '--thread'; did you mean '--threads'? (see omcti bench --help)$" "$OMCTI" bench -i "$T/in.y4m" --thread 1
row "join, a typo"         2 "join: unknown option '--audio-form'; did you mean '--audio-from'?" "$OMCTI" join -o "$T/out.y4m" --audio-form "$T/in.y4m" "$T/in.y4m"
row "farm, a typo of its own option" 2 "farm: unknown option '--segmnets'; did you mean '--segments'? (see omcti farm --help)" "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segmnets 2
# never one the farm sets itself ("--segmnt" was "did you mean '--segment'?", then refused)
row "farm, --segmnt" 2 "farm: unknown option '--segmnt'; did you mean '--segments'?" "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segmnt 2
row "farm, a typo of a conversion option" 2 "farm: unknown option '--slomo'; did you mean '--slowmo'?" "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segments 2 --slomo 2
row "no input"             2 "no input"         "$OMCTI" -o "$T/out.y4m"
# one wording for a missing input or output in every subcommand (eval and
# bench said "no input (-i FILE)"), an empty name as none (-i '' was
# "no input file given (use -i FILE)", exit 1 in eval and bench)
row "no input, the words"  2 "no input given (use -i INPUT)$" "$OMCTI" -o "$T/out.y4m"
row "-i ''"                2 "no input given (use -i INPUT)$" "$OMCTI" -i "" -o "$T/out.y4m"
# a second -i or -o took the place of the first without a word (FFmpeg's CLI
# would read two inputs: `-i a -i b` looked like a join and converted b alone)
row "--stats-period 0x10"   2 "--stats-period: '0x10' is not a number$" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --stats-period 0x10
row "-i twice"             2 "-i given twice ('$T/in.y4m' and '$T/in2.y4m'): omcti converts one input into one output$" "$OMCTI" -i "$T/in.y4m" -i "$T/in2.y4m" -o "$T/out.y4m"
row "-o twice"             2 "-o given twice ('$T/out.y4m' and '$T/out2.y4m'): omcti converts one input into one output$" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" -o "$T/out2.y4m"
# an output of another origin beside an existing workdir: refused at once,
# as before 2026-11-28 (the rerun check counted the frames first and made
# logs/ and frames.idx in the workdir)
mkdir -m700 "$T/fw"; echo "not a video" > "$T/fout.mkv"
row "farm, an unrelated output beside its workdir" 1 "output '$T/fout.mkv' already exists (use -y to overwrite)$" "$OMCTI" farm -i "$T/in.y4m" -o "$T/fout.mkv" --segments 2 --workdir "$T/fw"
[ -z "$(ls -A "$T/fw")" ] && ! grep -q counting "$T/err" && ok || bad "farm, an unrelated output: the workdir changed ($(ls -A "$T/fw")) or frames counted: $(cat "$T/err")"
rm -rf "$T/fw" "$T/fout.mkv"
row "farm -i twice"        2 "farm: -i given twice" "$OMCTI" farm -i "$T/in.y4m" -i "$T/in2.y4m" -o "$T/out.mkv" --segments 2
row "eval, no input"       2 "eval: no input given (use -i INPUT)$" "$OMCTI" eval --methods blend
row "eval -i ''"           2 "eval: no input given (use -i INPUT)$" "$OMCTI" eval -i ""
row "bench, no input"      2 "bench: no input given (use -i INPUT)$" "$OMCTI" bench --frames 5
row "bench -i ''"          2 "bench: no input given (use -i INPUT)$" "$OMCTI" bench -i ""
row "farm, no input"       2 "farm: no input given (use -i INPUT)$" "$OMCTI" farm --segments 2 -o "$T/out.y4m"
# a value error of bench, join and farm names the subcommand, as eval's and
# their unknown options do (they read "omcti: --frames: ...", "omcti:
# option -o needs a value")
row "bench --frames x"     2 "bench: --frames: 'x' is not a whole number$" "$OMCTI" bench -i "$T/in.y4m" --frames x
row "bench --frames"       2 "bench: option --frames needs a value$" "$OMCTI" bench -i "$T/in.y4m" --frames
row "bench --search x"     2 "bench: --search: unknown search 'x'" "$OMCTI" bench -i "$T/in.y4m" --search x
row "eval --search x"      2 "eval: --search: unknown search 'x' (pyramid, full, diamond)$" "$OMCTI" eval -i "$T/in.y4m" --search x
row "bench --method"       2 "bench: option --method needs a value$" "$OMCTI" bench -i "$T/in.y4m" --method
row "join -o"              2 "join: option -o needs a value$" "$OMCTI" join "$T/in.y4m" -o
row "farm --segments x"    2 "farm: --segments: 'x' is not a whole number$" "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segments x
row "farm --factor 0"      2 "farm: --factor: 0 is out of range (2..64)$" "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segments 2 --factor 0
row "join, no output"      2 "join: no output given (use -o OUTPUT)$" "$OMCTI" join "$T/in.y4m"
row "join, no pieces"      2 "join: no pieces given (use omcti join -o OUT PIECE\.\.\.)$" "$OMCTI" join -o "$T/out.y4m"
if [ "$HAVE_CUDA" = 0 ] || ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
    row "cuda without a GPU" 1 "cuda" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --engine cuda
else skipped "cuda without a GPU (a GPU is present)"; fi

# -o - onto a terminal: refused before a frame (it wrote the raw pictures,
# escape sequences among them, onto the screen); script(1) gives the terminal
if command -v script >/dev/null; then
    script -qec "'$OMCTI' -i '$T/in.y4m' -o - 2>'$T/err'" /dev/null >"$T/tty"; rc=$?
    [ $rc -eq 2 ] && [ "$(grep -c . "$T/err")" -eq 1 ] && grep -q "^omcti: -o -: stdout is a terminal" "$T/err" &&
        ! grep -q YUV4MPEG2 "$T/tty" && ok || bad "-o - onto a terminal: exit $rc: $(head -c 300 "$T/err")"
else skipped "-o - onto a terminal (no script)"; fi
row "--segment on a pipe"   2 "not a pipe"       "$OMCTI" -i - -o "$T/out.y4m" --segment 0/2
row "--workers 65"          2 "--workers: 65 is out of range (1..64)" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --workers 65
row "--workers 256"         2 "--workers: 256 is out of range (1..64)" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --workers=256
row "--devices 0-64"        2 "--devices: 64 is out of range (0..63)" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --engine cuda --devices 0-64
row "--devices with cpu"    2 "needs --engine cuda" "$OMCTI" -i "$T/in.y4m" -o "$T/out.y4m" --engine cpu --devices all

# --- names with control bytes: the error is still one line, nothing reaches the terminal raw ---
row "a name with a newline"    1 "cannot open '$T/a\\\\x0ab.y4m'" "$OMCTI" -i "$T/a
b.y4m" -o "$T/out.y4m"
row "a name with an escape sequence" 1 "cannot open '$T/\\\\x1b\[31mred.y4m'" "$OMCTI" -i "$T/"$'\e'"[31mred.y4m" -o "$T/out.y4m"
grep -q $'\e' "$T/err" && bad "an escape byte reached stderr" || ok
cp "$T/in.y4m" "$T/x
y.y4m"
row "join, a piece named with a newline" 1 "'$T/x\\\\x0ay.y4m' has no checksum file" "$OMCTI" join -o "$T/out.y4m" "$T/x
y.y4m" "$T/in.y4m"
# one form (\xNN) in every message, the program's own included: a tab, a C1
# control (U+0085, which some terminals take as a newline), invalid UTF-8
cp "$T/in.y4m" "$T/t"$'\t\xc2\x85\xff'"u.y4m"
row "join, a piece named with a tab, C1 and invalid UTF-8" 1 "'$T/t\\\\x09\\\\xc2\\\\x85\\\\xffu.y4m' has no checksum file" "$OMCTI" join -o "$T/out.y4m" "$T/t"$'\t\xc2\x85\xff'"u.y4m" "$T/in.y4m"
grep -q $'\xc2\x85' "$T/err" && bad "a C1 control reached stderr raw" || ok

# --- farm: a workdir every user may write into is refused (its scripts run as the user) ---
mkdir -p "$T/ww" && chmod 0777 "$T/ww"
row "farm: a workdir every user may write into" 1 "every user may write into the folder" \
    "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segments 2 --workdir "$T/ww"
[ -z "$(ls -A "$T/ww")" ] && ok || bad "farm wrote into a world-writable workdir: $(ls -A "$T/ww")"
rm -rf "$T/ww"

# --- farm: --sbatch past what is passed to sbatch is refused, not cut short ---
row "farm: --sbatch of 65 words" 2 "farm: --sbatch is too long (65 words, " \
    "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segments 2 --workdir "$T/fw" \
    --sbatch "$(printf -- '--comment=%d ' $(seq 65))"
row "farm: --sbatch of 4096 bytes" 2 "farm: --sbatch is too long (1 word, 4096 bytes)" \
    "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segments 2 --workdir "$T/fw" \
    --sbatch "--comment=$(head -c 4086 /dev/zero | tr '\0' a)"
[ ! -e "$T/fw" ] && ok || bad "farm made its workdir for an --sbatch it refuses"

# --- farm: an input it refuses leaves no workdir (it was made before the checks) ---
# (the default workdir, out.y4m.omcti-farm, counts as output left behind)
row "farm: a frame rate past 31 bits" 1 "'$T/fast.y4m': the frame rate 1000000000/1 is too high to multiply by 3 exactly" \
    "$OMCTI" farm -i "$T/fast.y4m" -o "$T/out.y4m" --segments 2 --factor 3
rm -rf "$T/out.y4m.omcti-farm"   # (where it failed: the rows below do not see it)
# (in the conversion's words: farm said "has fewer than two video frames")
row "farm: one frame, --workdir" 1 "'$T/one.y4m' has only one video frame; at least two are needed$" \
    "$OMCTI" farm -q -i "$T/one.y4m" -o "$T/out.y4m" --segments 2 --workdir "$T/fw"
# a workdir that cannot be made is said before the counting pass (its line
# came after "counting the frames", minutes on a long film)
row "farm: a workdir in a missing folder" 1 "farm: cannot create the workdir '$T/none/wd': No such file or directory" \
    "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segments 2 --workdir "$T/none/wd"
row "farm: a workdir under a file" 1 "farm: cannot create the workdir '$T/in.y4m/wd': Not a directory" \
    "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segments 2 --workdir "$T/in.y4m/wd"
row "farm: not a y4m, --workdir" 1 "not a y4m" \
    "$OMCTI" farm -i "$T/text.y4m" -o "$T/out.y4m" --segments 2 --workdir "$T/fw"
row "farm: more segments than frames, --workdir" 2 "use at most 8 segments" \
    "$OMCTI" farm -q -i "$T/in.y4m" -o "$T/out.y4m" --segments 9 --workdir "$T/fw"
# a workdir Slurm cannot name its logs in (a backslash in its path): said
# before the counting pass, and no folder made (an empty one was left)
mkdir -p "$T/bs\\dir"
row "farm: a backslash in the default workdir" 2 "farm: the workdir '$T/bs\\\\dir/out.y4m.omcti-farm' has a backslash" \
    "$OMCTI" farm -i "$T/in.y4m" -o "$T/bs\\dir/out.y4m" --segments 2
row "farm: a backslash in --workdir" 2 "farm: the workdir '$T/bs\\\\dir/w' has a backslash" \
    "$OMCTI" farm -i "$T/in.y4m" -o "$T/out.y4m" --segments 2 --workdir "$T/bs\\dir/w"
[ -z "$(ls -A "$T/bs\\dir")" ] && ok || bad "farm left a workdir it refused: $(ls -A "$T/bs\\dir")"
rm -rf "$T/bs\\dir"
"$Y4M" gen 64 48 2 > "$T/two.y4m"
row "farm: one segment at most (singular)" 2 "leave segment 1 without output frames; use at most 1 segment\$" \
    "$OMCTI" farm -q -i "$T/two.y4m" -o "$T/out.y4m" --segments 2 --fps 1 --workdir "$T/fw"
[ ! -e "$T/fw" ] && ok || bad "farm made its workdir for an input it refuses: $(ls -A "$T/fw")"

# --- a frame index (--index, the side file of omcti farm) is checked like an input ---
# in.y4m: 64x48 4:2:0, so every frame is "FRAME\n" and 4608 bytes after the header
hdr=$(head -1 "$T/in.y4m" | wc -c)
index() {   # FRAMES KEYS [KEY...]: an index for in.y4m (its real size and time)
    local frames=$1 keys=$2; shift 2
    printf 'omcti-frame-index 1\nfile %s %s\nkind offset 0\nframes %s\nkeys %s\n' \
        "$(stat -c %s "$T/in.y4m")" "$(date -r "$T/in.y4m" +%s%N)" "$frames" "$keys"
    for k in "$@"; do printf '%s\n' "$k"; done
}
offsets=(); for k in 0 1 2 3 4 5 6 7; do offsets+=($((hdr + k * 4614))); done
index 8 1 "${offsets[@]}" > "$T/good.idx"
row "--index, a valid index"  0 "" "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.y4m" --segment 1/2 --index "$T/good.idx"
idxrow() {   # NAME: $T/bad.idx is refused with one line naming it, no crash
    row "--index: $1" 1 "'$T/bad.idx': not a valid omcti frame index" \
        "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.y4m" --segment 1/2 --index "$T/bad.idx"
}
index 2305843009213693952 1 "${offsets[@]}" > "$T/bad.idx"; idxrow "2^61 frames (8*count wraps)"
index 2305843009213693953 1 "${offsets[@]}" > "$T/bad.idx"; idxrow "2^61+1 frames"
index 9223372036854775807 1 "${offsets[@]}" > "$T/bad.idx"; idxrow "INT64_MAX frames"
index 99999999999999999999 1 "${offsets[@]}" > "$T/bad.idx"; idxrow "frames overflow int64"
index -1 1 > "$T/bad.idx"; idxrow "negative frames"
index 9 1 "${offsets[@]}" > "$T/bad.idx"; idxrow "fewer keys than frames"
index 8 1 "${offsets[@]}" 999 > "$T/bad.idx"; idxrow "data after the keys"
index 8 1 "${offsets[0]}" "${offsets[2]}" "${offsets[1]}" "${offsets[@]:3}" > "$T/bad.idx"; idxrow "keys out of order"
index 8 1 "${offsets[@]:0:7}" 99999999 > "$T/bad.idx"; idxrow "an offset past the input"
index 8 1 -5 "${offsets[@]:1}" > "$T/bad.idx"; idxrow "a negative offset"
index 8 1 "${offsets[@]:0:7}" 1e9 > "$T/bad.idx"; idxrow "a key that is not a number"
index 8 0 > "$T/bad.idx"; idxrow "a y4m index without keys"
index 8 7 "${offsets[@]}" > "$T/bad.idx"; idxrow "keys 7"
index 8 1 "${offsets[@]}" | sed 's/kind offset 0/kind offset 99999999999/' > "$T/bad.idx"; idxrow "stream out of range"
index 8 1 "${offsets[@]}" | sed 's/kind offset 0/kind nonsense 0/' > "$T/bad.idx"; idxrow "unknown kind"
index 8 1 "${offsets[@]}" | sed 's/^frames 8/frames 8 8/' > "$T/bad.idx"; idxrow "two values for frames"
index 8 1 "${offsets[@]}" | sed 's/^frames 8/frames +8/' > "$T/bad.idx"; idxrow "frames +8"
{ index 8 1; head -c 100000 /dev/zero | tr '\0' 7; } > "$T/bad.idx"; idxrow "an endless line"
index 8 1 "${offsets[@]}" | head -c 60 > "$T/bad.idx"; idxrow "truncated header"
printf 'omcti-frame-index 3\n' > "$T/bad.idx"; idxrow "unknown version"
# version 1 had no "keys 2" (repeated timestamps): its "keys 0" is stale
index 8 0 | sed 's/kind offset 0/kind pts 0/' > "$T/bad.idx"; idxrow "version 1 without keys"
grep -q "made by an older omcti" "$T/err" && ok || bad "version 1 without keys: $(cat "$T/err")"
# timestamps at both ends of int64: their distance overflowed in timed_add()
# (UBSan 'signed integer overflow'); such a key gives no usable time
if [ "$HAVE_FFMPEG" = 1 ] && command -v ffmpeg >/dev/null; then
    ffmpeg -v error -y -f lavfi -i testsrc=size=64x48:rate=25 -frames 8 -c:v ffv1 "$T/ix.mkv"
    { printf 'omcti-frame-index 2\nfile %s %s\nkind pts 0\nframes 8\nkeys 1\n' \
          "$(stat -c %s "$T/ix.mkv")" "$(date -r "$T/ix.mkv" +%s%N)"
      printf '%s\n' -9223372036854775807 40 80 120 160 200 240 9223372036854775807; } > "$T/pts.idx"
    UBSAN_OPTIONS=halt_on_error=1 row "--index: pts keys from INT64_MIN+1 to INT64_MAX" 0 "" \
        "$OMCTI" -q -i "$T/ix.mkv" -o "$T/out.mkv" --segment 1/2 --index "$T/pts.idx"
    grep -q "runtime error" "$T/err" && bad "--index pts extremes: $(cat "$T/err")" || ok
fi
row "--index: not an index" 1 "not an omcti frame index" "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.y4m" --segment 1/2 --index "$T/in.y4m"
row "--index: a directory" 1 "is a directory" "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.y4m" --segment 1/2 --index "$T"
mkfifo "$T/fifo.idx"
row "--index: a FIFO (not waited on)" 1 "not a regular file" timeout 10 "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.y4m" --segment 1/2 --index "$T/fifo.idx"
cp "$T/in.y4m" "$T/in2.y4m"
row "--index: another file's" 2 "made for another version" "$OMCTI" -q -i "$T/in2.y4m" -o "$T/out.y4m" --segment 1/2 --index "$T/good.idx"

# --- eval --plot: no name reaches gnuplot as code, a missing folder fails up front ---
if command -v gnuplot >/dev/null; then
    H=$T/hostile; mkdir -p "$H"
    "$Y4M" gen 32 32 6 > "$H/six.y4m"
    # input names, --compare labels and plot names that would run `touch`
    # as gnuplot code if pasted into its script (the issue's example and variants)
    names=("clip';system('touch PWNED1');'"
           "clip\";system(\"touch PWNED2\");\""
           "clip\`touch PWNED3\`"
           "clip\$(touch PWNED4)"
           "clip'
system('touch PWNED5')
'"
           "clip\\';system('touch PWNED6');'"
           "clip@x';x='system(\"touch PWNED7\")")
    k=0
    for nm in "${names[@]}"; do
        k=$((k + 1))
        cp "$H/six.y4m" "$H/$nm.y4m"
        (cd "$H" && "$OMCTI" eval -i "$nm.y4m" --methods blend --compare "six.y4m=$nm" \
            --plot "$nm.png" >/dev/null 2>"$T/err"); rc=$?
        [ $rc -eq 0 ] && [ -s "$H/$nm.png" ] && ok || bad "eval --plot, hostile name $k: exit $rc, plot $(ls "$H/$nm.png" 2>&1): $(cat "$T/err")"
        rm -f "$H/$nm.y4m" "$H/$nm.png"
    done
    if ls -A "$H" / . | grep -q PWNED; then bad "eval --plot ran code from a name: $(ls -A "$H" | grep PWNED)"; else ok; fi
    [ "$(ls -A "$H")" = six.y4m ] && ok || bad "eval --plot left files: $(ls -A "$H")"
    # the table shows names and labels without their control bytes
    cp "$H/six.y4m" "$H/e"$'\e'"[2J.y4m"
    (cd "$H" && "$OMCTI" eval -i "e"$'\e'"[2J.y4m" --methods blend --compare "six.y4m=l"$'\e'"[2J"$'\n'"x") >"$T/stdout" 2>"$T/err"
    [ $? -eq 0 ] && ! grep -q $'\e' "$T/stdout" && ok || bad "eval prints control bytes of names: $(od -c "$T/stdout" | head -3)"
    rm -f "$H/e"$'\e'"[2J.y4m"
    # a plot into a missing folder: one line before any work, nothing on stdout
    "$OMCTI" eval -i "$H/six.y4m" --methods blend --plot "$T/no-such-dir/p.png" >"$T/stdout" 2>"$T/err"; rc=$?
    [ $rc -eq 1 ] && [ "$(grep -c . "$T/err")" -eq 1 ] && grep -q "^omcti: eval: cannot write the plot '$T/no-such-dir/p.png': No such file" "$T/err" &&
        [ ! -s "$T/stdout" ] && ok || bad "eval --plot into a missing folder: exit $rc, stdout $(wc -c <"$T/stdout") bytes: $(cat "$T/err")"
    cp "$H/six.y4m" "$T/six.keep"
    "$OMCTI" eval -i "$H/six.y4m" --methods blend --plot "$H/six.y4m" >/dev/null 2>"$T/err"; rc=$?
    # exit 2, as -o onto the input (it was 1)
    [ $rc -eq 2 ] && grep -q "also an input" "$T/err" && cmp -s "$H/six.y4m" "$T/six.keep" && ok || bad "eval --plot onto its input: exit $rc: $(cat "$T/err")"
else
    skipped "eval --plot (gnuplot not installed)"
fi

# --- bench: repeated runs, the median and its spread, a warning when the numbers cannot be trusted ---
cp "$T/in.y4m" "$T/be\"nch\\.y4m"
"$OMCTI" bench -i "$T/be\"nch\\.y4m" --frames 5 --threads 1,2 --search diamond --repeat 5 --max-spread 0 --json >"$T/bench.json" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && python3 - "$T/bench.json" "$T/err" "$T/be\"nch\\.y4m" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))          # valid JSON although the name holds " and \
err = open(sys.argv[2]).read()
assert d["input"] == sys.argv[3], d["input"]
assert d["repeat"] == 5 and d["statistic"] == "median"
worst = 0
for r in d["runs"]:
    each = r["me_ms_per_pair_each"]
    assert len(each) == 5, each
    assert abs(statistics.median(each) - r["me_ms_per_pair"]) <= 1e-6 * r["me_ms_per_pair"], r
    spread = 100 * (max(each) - min(each)) / statistics.median(each)
    assert abs(spread - r["me_spread_pct"]) < 0.01, r
    worst = max(worst, r["me_spread_pct"])
# the warnings say what the numbers show, no more and no less
assert ("differ by" in err) == (worst > 0), (worst, err)
assert ("machine is busy (load average" in err) == (d["load_average_before"] > d["cpus_online"]), err
assert d["busy"] == (worst > 0 or d["load_average_before"] > d["cpus_online"])
PY
then ok; else bad "bench --repeat 5 --json: exit $rc: $(cat "$T/err")"; fi
# into a log (not a terminal) no progress is redrawn: no carriage return
"$OMCTI" bench -i "$T/in.y4m" --frames 3 --threads 1 --search diamond --repeat 1 --engine cpu >/dev/null 2>"$T/err"
! grep -q $'\r' "$T/err" && ok || bad "bench into a log: carriage returns in '$(tr '\r' '^' <"$T/err")'"
row "bench --repeat 0"       2 "--repeat: 0 is out of range" "$OMCTI" bench -i "$T/in.y4m" --repeat 0
row "bench --repeat 101"     2 "--repeat: 101 is out of range" "$OMCTI" bench -i "$T/in.y4m" --repeat 101
row "bench --max-spread -1"  2 "--max-spread" "$OMCTI" bench -i "$T/in.y4m" --max-spread -1
# -i as the last argument lacks its value (it was "unknown option '-i'")
row "bench -i without a file" 2 "option -i needs a value" "$OMCTI" bench --frames 3 -i
# an engine no one has: a usage error before the decoding (it was exit 1)
# the searches it names are those it takes (pyramid was left out), each once
row "bench --search hexagon" 2 "--search: unknown search 'hexagon' (pyramid, full, diamond)" "$OMCTI" bench -i "$T/in.y4m" --search hexagon
row "bench --search full,full" 2 "--search: 'full' is listed twice" "$OMCTI" bench -i "$T/in.y4m" --search full,full
row "bench --engine gpu"     2 "--engine: unknown engine 'gpu' (auto, cpu, cuda)" "$OMCTI" bench -i "$T/in.y4m" --engine cpu,gpu
row "bench --cpu neon"       2 "--cpu: unknown level 'neon' (c, sse2, avx2, avx512)" "$OMCTI" bench -i "$T/in.y4m" --cpu neon
row "bench --cpu (no value)" 2 "--cpu" "$OMCTI" bench -i "$T/in.y4m" --cpu
# the only engine asked for cannot run: one line saying why (it was a skip
# line, a carriage return and 70 spaces, then "no engine could run")
if [ "$HAVE_CUDA" = 0 ] || ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
    row "bench --engine cuda without a GPU" 1 "bench: no engine could run: engine 'cuda' is not available" \
        "$OMCTI" bench -i "$T/in.y4m" --frames 3 --threads 1 --repeat 1 --engine cuda
else skipped "bench --engine cuda without a GPU (a GPU is present)"; fi
# every level runs and is named in the result (the output is the same at each)
for lv in c sse2 avx2 avx512; do
    "$OMCTI" bench -i "$T/in.y4m" --frames 3 --threads 1 --search diamond --repeat 1 --cpu $lv --json >"$T/bench.json" 2>"$T/err" &&
        python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["cpu"] == sys.argv[2]' "$T/bench.json" $lv &&
        ok || bad "bench --cpu $lv: $(cat "$T/err")"
done
"$OMCTI" bench -i "$T/in.y4m" --frames 3 --threads 1 --search diamond --repeat 1 --cpu=sse2 2>"$T/err" | grep -q ", SIMD sse2$" &&
    ok || bad "bench --cpu=sse2: the table does not name the level: $(cat "$T/err")"
# without --search: the conversion's own search (pyramid) first, then the paper's pair
"$OMCTI" bench -i "$T/in.y4m" --frames 3 --threads 1 --repeat 1 --json >"$T/bench.json" 2>"$T/err" &&
    python3 -c 'import json, sys; r = [x["search"] for x in json.load(open(sys.argv[1]))["runs"]]; assert r == ["pyramid", "full", "diamond"], r' "$T/bench.json" &&
    ok || bad "bench default searches: $(cat "$T/err")"

# --- interruption: a stopping signal removes the incomplete output ---
# (SIGXCPU: a CPU-time limit; SIGUSR1: a scheduler's warning before a
# job's end; both ended the process and left the temporary file)
"$Y4M" gen 352 288 400 > "$T/long.y4m"
for sig in INT XCPU USR1; do
    # the CPU engine: on a GPU the whole run ends before the signal
    "$OMCTI" -i "$T/long.y4m" -o "$T/out.y4m" --engine cpu --threads 1 --search full 2>"$T/err" &   # seconds long
    pid=$!
    for _ in $(seq 50); do ls -A "$T" | grep -q '^\.out\.' && break; sleep 0.1; done
    sleep 0.3; kill -$sig $pid; wait $pid; rc=$?
    want=interrupted; [ $sig = INT ] || want="stopped by SIG$sig"
    [ $rc -eq 130 ] && grep -q "$want.*; the incomplete output was removed" "$T/err" && ok || bad "SIG$sig: exit $rc: $(cat "$T/err")"
    if ls -A "$T" | grep -q '^out\.\|^\.out\.'; then bad "SIG$sig left output: $(ls -A "$T")"; rm -f "$T"/out.* "$T"/.out.*; else ok; fi
done

# --- FFmpeg inputs ---
if [ "$HAVE_FFMPEG" = 1 ] && command -v ffmpeg >/dev/null; then
    # an image sequence pattern (image2 reads the files it names): refused,
    # with the article right ("a image2 file" before)
    ffmpeg -v error -y -f lavfi -i testsrc=size=64x48 -frames 1 "$T/seq1.png"
    cp "$T/seq1.png" "$T/seq%d.png"
    row "an image2 pattern" 1 "'$T/seq%d.png': an image2 file, which names other files" \
        "$OMCTI" -i "$T/seq%d.png" -o "$T/out.mkv"
    # a 256x256 FFV1 Matroska whose track says 12000x12000: refused before
    # a picture of that size is decoded (it took 25 s and 3 GB to fail)
    ffmpeg -v error -y -f lavfi -i testsrc=size=256x256:rate=25 -frames 4 -c:v ffv1 "$T/s256.mkv"
    python3 - "$T/s256.mkv" "$T/s12k.mkv" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
for eid in (b"\xb0", b"\xba"):   # PixelWidth, PixelHeight: 256 -> 12000
    d = d.replace(eid + b"\x82\x01\x00", eid + b"\x82\x2e\xe0")
open(sys.argv[2], "wb").write(d)
PY
    row "mkv stating 12000x12000" 1 "larger than omcti handles" timeout 20 "$OMCTI" -i "$T/s12k.mkv" -o "$T/out.y4m"
    ff() { ffmpeg -v error -y "$@"; }
    row "HLS output (a playlist and its segments)" 2 "the hls format writes files of its own" "$OMCTI" -i "$T/in.y4m" -o "$T/out.m3u8"
    [ -z "$(ls "$T" | grep '\.ts$')" ] && ok || bad "HLS output: segment files written: $(ls "$T")"
    # --lossless into .mkv (FFV1) of pictures too small to slice: level 1
    # (the sliced level 3 failed with "Function not implemented")
    for s in 2x8 3x97; do
        ff -f lavfi -i "testsrc2=s=64x64:r=10:d=0.5" -vf scale=$s -pix_fmt yuv420p -c:v ffv1 "$T/tiny.mkv"
        row "--lossless .mkv of a $s picture" 0 "" "$OMCTI" -q -i "$T/tiny.mkv" -o "$T/out.mkv" --lossless
        [ "$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$T/out.mkv")" = "${s/x/,}" ] && ok ||
            bad "--lossless .mkv of a $s picture: $(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$T/out.mkv")"
        rm -f "$T/out.mkv"
    done
    # Matroska says "no" to codecs without a Matroska ID of their own, yet
    # stores them under their AVI or QuickTime tag, as FFmpeg's CLI does
    for c in png utvideo; do
        row "--codec $c into .mkv" 0 "" "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.mkv" --codec $c
        [ "$(ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$T/out.mkv")" = $c ] && ok ||
            bad "--codec $c into .mkv: $(ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$T/out.mkv")"
        rm -f "$T/out.mkv"
        # the parts of --workers are joined by the same rule
        row "--codec $c into .mkv, --workers 2" 0 "" "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.mkv" --codec $c --workers 2
        [ "$(ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$T/out.mkv")" = $c ] && ok ||
            bad "--codec $c into .mkv: $(ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$T/out.mkv")"
        rm -f "$T/out.mkv"
    done
    # --codec dnxhd: DNxHR HQ, which needs no bit rate (DNxHD proper failed
    # "Invalid argument" for want of one); under 256x120 refused, in one line
    ff -f lavfi -i "testsrc2=s=320x240:r=25:d=0.4" -pix_fmt yuv420p "$T/in320.y4m"
    row "--codec dnxhd into .mov" 0 "" "$OMCTI" -q -i "$T/in320.y4m" -o "$T/out.mov" --codec dnxhd
    [ "$(ffprobe -v error -show_entries stream=codec_name,profile -of csv=p=0 "$T/out.mov")" = "dnxhd,DNXHR HQ" ] && ok ||
        bad "--codec dnxhd into .mov: $(ffprobe -v error -show_entries stream=codec_name,profile -of csv=p=0 "$T/out.mov")"
    rm -f "$T/out.mov"
    row "--codec dnxhd of a 64x48 picture" 2 "DNxHR takes pictures of 256x120 or more, not 64x48" "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.mov" --codec dnxhd
    ff -f lavfi -i "testsrc2=s=64x48:r=25:d=0.4" -f lavfi -i "sine=d=0.4" -c:v mpeg4 -c:a adpcm_ima_wav "$T/adpcm.avi"
    row "ADPCM audio into .mkv" 0 "" "$OMCTI" -q -i "$T/adpcm.avi" -o "$T/out.mkv"
    [ "$(ffprobe -v error -select_streams a -show_entries stream=codec_name -of csv=p=0 "$T/out.mkv")" = adpcm_ima_wav ] && ok ||
        bad "ADPCM audio into .mkv: not kept"
    rm -f "$T/out.mkv"
    row "--codec png into .webm" 2 "the webm container cannot hold png video" "$OMCTI" -q -i "$T/in.y4m" -o "$T/out.webm" --codec png
    # a y4m with mixed fields (Im), split into parts and written encoded:
    # nothing to copy from it (FFmpeg's y4m demuxer refuses Im)
    sed '1s/ Ip / Im /' "$T/in.y4m" > "$T/mixed.y4m"
    row "a y4m with mixed fields, --workers 2, to .mkv" 0 "interlaced (mixed fields)" "$OMCTI" -i "$T/mixed.y4m" -o "$T/out.mkv" --workers 2
    rm -f "$T/out.mkv"
    cp "$T/mixed.y4m" "$T/mixed.dat"   # y4m by its first bytes, not its name
    row "a y4m named .dat with mixed fields, --workers 2, to .mkv" 0 "interlaced (mixed fields)" "$OMCTI" -i "$T/mixed.dat" -o "$T/out.mkv" --workers 2
    rm -f "$T/out.mkv"
    # a frame longer than MP4 can say: refused with the reason, before a
    # picture is written (it was the muxer's bare EINVAL at the first one)
    # (exit 2 as other output choices refused; 1 before 2026-11-28)
    row "a frame duration MP4 cannot store" 2 "'$T/out.mp4': MP4 stores a frame's duration in at most 2^31 - 1 steps" "$OMCTI" -i "$T/in.y4m" -o "$T/out.mp4" --fps 1/1000000000
    # MJPEG is full range: limited-range pictures are converted (FFmpeg's CLI does too)
    ff -f lavfi -i "testsrc2=s=96x64:r=25:d=0.4" -pix_fmt yuv420p -c:v ffv1 "$T/tv.mkv"
    row "--codec mjpeg from limited range" 0 "" "$OMCTI" -q -i "$T/tv.mkv" -o "$T/out.avi" --codec mjpeg
    got=$(ffprobe -v error -select_streams v -show_entries stream=pix_fmt,color_range -of csv=p=0 "$T/out.avi")
    psnr=$(ffmpeg -hide_banner -i "$T/out.avi" -i "$T/tv.mkv" -lavfi "[0]trim=end_frame=1,scale=out_range=tv,format=yuv420p[a];[1]trim=end_frame=1[b];[a][b]psnr" -f null - 2>&1 | sed -n 's/.*PSNR y:\([0-9]*\).*/\1/p')
    [ "$got" = "yuvj420p,pc" ] && [ "${psnr:-0}" -ge 30 ] && ok || bad "mjpeg: written as '$got', first picture at ${psnr:-?} dB against the input"
    rm -f "$T/out.avi"
    ff -f lavfi -i "sine=d=1" "$T/audio.wav"
    row "audio-only file"  1 "no video stream" "$OMCTI" -i "$T/audio.wav" -o "$T/out.mkv"
    ff -f lavfi -i "testsrc2=s=64x48" -frames:v 1 "$T/image.png"
    row "an image (one frame)" 1 "only one video frame" "$OMCTI" -i "$T/image.png" -o "$T/out.mkv"
    # a photo: FFmpeg reads a .jpg (.tif, .bmp) with image2, which omcti
    # refuses for its patterns; without one it is one picture, as a .png
    # ("an image2 file, which names other files" before)
    ff -f lavfi -i "testsrc2=s=320x240" -frames:v 1 "$T/photo.jpg"   # (a 64x48 one probes as jpeg_pipe)
    row "a photo (.jpg: one frame)" 1 "'$T/photo.jpg' has only one video frame (a still image); at least two" \
        "$OMCTI" -i "$T/photo.jpg" -o "$T/out.mkv"
    # brackets or a % in its name or its folder's are no sequence pattern
    # (they were taken for one: "an image2 file, which names other files")
    mkdir -p "$T/100%"; cp "$T/photo.jpg" "$T/photo [1].jpg"; cp "$T/photo.jpg" "$T/100%/p{1}.jpg"
    row "a photo named 'photo [1].jpg'" 1 "'$T/photo \[1\].jpg' has only one video frame (a still image)" \
        "$OMCTI" -i "$T/photo [1].jpg" -o "$T/out.mkv"
    row "a photo in a folder '100%'" 1 "'$T/100%/p{1}.jpg' has only one video frame (a still image)" \
        "$OMCTI" -i "$T/100%/p{1}.jpg" -o "$T/out.mkv"
    echo "plain text" > "$T/text.mp4"
    row "text file named .mp4" 1 "not a video" "$OMCTI" -i "$T/text.mp4" -o "$T/out.mkv"
    head -c 20000 /dev/urandom > "$T/random.mkv"
    row "random bytes"     1 "random.mkv" "$OMCTI" -i "$T/random.mkv" -o "$T/out.mkv"
    # a container cut short inside its header, or before its first picture
    # is whole: said so (it was "cannot open: Input/output error", "not a
    # video file FFmpeg can read: End of file", "the video stream holds no
    # picture"); text and random bytes above stay "not a video"
    ff -f lavfi -i "testsrc2=s=320x240:r=25:d=1" -c:v ffv1 "$T/ffv1.mkv"   # (a 0.6 KB header, 7 KB pictures)
    head -c 200 "$T/ffv1.mkv" > "$T/cut200.mkv"
    head -c 3000 "$T/ffv1.mkv" > "$T/cut3000.mkv"
    for w in 1 2; do
        row "mkv cut at 200 bytes, --workers $w" 1 "'$T/cut200.mkv': cannot read its container header (Input/output error): a truncated or damaged file?" \
            "$OMCTI" -i "$T/cut200.mkv" -o "$T/out.mkv" --workers $w
        row "mkv cut at 3000 bytes, --workers $w" 1 "'$T/cut3000.mkv': the file ends before its first picture (its header says 1.00 s of video): a truncated or damaged file?" \
            "$OMCTI" -i "$T/cut3000.mkv" -o "$T/out.mkv" --workers $w
    done
    ff -f lavfi -i "testsrc2=s=64x48:r=25:d=1" -c:v libx264 "$T/moov-last.mp4"
    head -c 100 "$T/moov-last.mp4" > "$T/cut-mdat.mp4"
    head -c $(( $(stat -c %s "$T/moov-last.mp4") - 100 )) "$T/moov-last.mp4" > "$T/cut-moov.mp4"
    # an MP4/MOV cut short is named by the box it ends in, wherever FFmpeg
    # fails on it (before: "cannot read its container header", and for a
    # fast-start file "no video stream", "no decoder for the video codec",
    # "decoding: Invalid data found when processing input")
    cut_line() { echo "'$T/$1': the file ends at byte $2, inside its '$3' box, which runs to byte [0-9]*: a truncated file (a download or copy not finished?)"; }
    row "mp4 cut inside its media data" 1 "$(cut_line cut-mdat.mp4 100 mdat)" \
        "$OMCTI" -i "$T/cut-mdat.mp4" -o "$T/out.mkv"
    row "mp4 cut inside its moov" 1 "$(cut_line cut-moov.mp4 "$(stat -c %s "$T/cut-moov.mp4")" moov)" \
        "$OMCTI" -i "$T/cut-moov.mp4" -o "$T/out.mkv"
    ff -f lavfi -i "testsrc2=s=320x240:r=25:d=1" -c:v libx264 -movflags +faststart "$T/faststart.mp4"
    # cut inside its third picture: the two before it are converted, with
    # the warning (the decoder's complaint at the end of the data was
    # "decoding: Invalid data found when processing input")
    third=$(ffprobe -v error -select_streams v -show_entries packet=pos,size -of flat "$T/faststart.mp4" |
            awk -F= '/packet\.2\.pos=/ { gsub(/"/, "", $2); p = $2 } /packet\.2\.size=/ { gsub(/"/, "", $2); s = $2 } END { print p + int(s / 2) }')
    head -c "$third" "$T/faststart.mp4" > "$T/cut-third.mp4"
    # bytes after a whole file, or a box size past any file, are not taken
    # for a cut ("inside its '????' box", "which runs to byte 8")
    ff -f lavfi -i "sine=d=0.5" -c:a aac "$T/sound.m4a"
    printf 'a tag appended\n' >> "$T/sound.m4a"
    row "m4a with text appended: audio only, not cut" 1 "'$T/sound.m4a': no video stream (the file holds audio only)" \
        "$OMCTI" -i "$T/sound.m4a" -o "$T/out.mkv"
    { head -c 32 "$T/faststart.mp4"; printf '\0\0\0\1mdat\377\377\377\377\377\377\377\360'; head -c 100 /dev/zero; } > "$T/huge-box.mp4"
    row "mp4 with a box size past any file: not called cut" 1 "'$T/huge-box.mp4': cannot read its container header" \
        "$OMCTI" -i "$T/huge-box.mp4" -o "$T/out.mkv"
    row "fast-start mp4 cut inside its third picture" 0 "warning: .*cut-third.mp4.*ends early" \
        "$OMCTI" -i "$T/cut-third.mp4" -o "$T/out.mkv"
    for n in 9 200 400 3000; do
        head -c $n "$T/faststart.mp4" > "$T/cut$n.mp4"
        box=moov; [ $n = 9 ] && box=ftyp; [ $n = 3000 ] && box=mdat
        for w in 1 2; do
            row "fast-start mp4 cut at $n bytes, --workers $w" 1 "$(cut_line cut$n.mp4 $n $box)" \
                "$OMCTI" -i "$T/cut$n.mp4" -o "$T/out.mkv" --workers $w
        done
    done
    ff -f lavfi -i "testsrc2=s=96x64:r=25:d=2" -c:v libx264 -g 10 "$T/h264.mkv"
    head -c $(( $(stat -c %s "$T/h264.mkv") * 2 / 3 )) "$T/h264.mkv" > "$T/cut.mkv"
    row "truncated file (ends at the last good frame)" 0 "" "$OMCTI" -q -i "$T/cut.mkv" -o "$T/out.mkv"
    # corrupt the middle of a long-GOP stream: skipped and reported, or refused
    cp "$T/h264.mkv" "$T/corrupt.mkv"
    size=$(stat -c %s "$T/corrupt.mkv")
    dd if=/dev/urandom of="$T/corrupt.mkv" bs=1 seek=$((size / 2)) count=3000 conv=notrunc status=none
    "$OMCTI" -i "$T/corrupt.mkv" -o "$T/out.mkv" -y 2>"$T/err"; rc=$?
    if [ $rc -eq 0 ]; then grep -q "warning:.*corrupt.mkv" "$T/err" && ok || bad "corrupt stream converted without a warning: $(cat "$T/err")"
    elif [ $rc -eq 1 ]; then grep -q "corrupt.mkv" "$T/err" && ok || bad "corrupt: $(cat "$T/err")"
    else bad "corrupt stream: exit $rc"; fi
    # with workers: damage inside the first worker's part (500 zero bytes a
    # quarter into 8 s of video, its end intact) is reported, once
    ff -f lavfi -i "testsrc2=s=96x64:r=25:d=8" -c:v libx264 -g 25 "$T/long.mkv"
    size=$(stat -c %s "$T/long.mkv")
    dd if=/dev/zero of="$T/long.mkv" bs=1 seek=$((size / 4)) count=500 conv=notrunc status=none
    # (FFmpeg's H.264 decoder marks the concealed picture from its frame
    # threads, and now and then does not: about 1 run in 12 here. A run
    # that warns once passes; up to 3 runs, none may warn more than once.)
    for w in 1 3; do
        got=0 msg=""
        for try in 1 2 3; do
            "$OMCTI" -q -i "$T/long.mkv" -o "$T/out.mkv" -y --workers $w 2>"$T/err"; rc=$?
            n=$(grep -c "warning:.*long.mkv.*concealed" "$T/err")
            [ $rc -eq 0 ] && [ "$(grep -c . "$T/err")" -eq "$n" ] && [ "$n" -le 1 ] ||
                { got=-1; msg="exit $rc: $(cat "$T/err")"; break; }
            [ "$n" -eq 1 ] && { got=1; break; }
        done
        [ $got -eq 1 ] && ok || bad "damage inside, --workers $w: not one warning in 3 runs ${msg}"
    done
    "$OMCTI" -q -i "$T/cut.mkv" -o "$T/out.mkv" -y --workers 3 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && [ "$(grep -c "warning:.*cut.mkv.*ends early" "$T/err")" -eq 1 ] &&
        [ "$(grep -c warning "$T/err")" -eq 1 ] && ok ||
        bad "truncated file, --workers 3: exit $rc, not one warning: $(cat "$T/err")"
    # sound that starts before the first picture: the video is shorter than
    # the file (FFmpeg's Matroska DURATION tag is the track's end time), not
    # truncated; with an mp4 as well (no tag: the file's duration)
    ff -f lavfi -i "testsrc2=s=64x48:r=25:d=2" -c:v ffv1 "$T/v2s.mkv"
    for c in mkv mp4; do
        [ $c = mkv ] && vc=ffv1 || vc=mpeg4
        ff -itsoffset 0.6 -i "$T/v2s.mkv" -f lavfi -i "sine=d=2.6" -map 0:v -map 1:a -c:v $vc -c:a aac "$T/late.$c"
        "$OMCTI" -q -i "$T/late.$c" -o "$T/out.mkv" -y 2>"$T/err"; rc=$?
        [ $rc -eq 0 ] && [ ! -s "$T/err" ] && ok ||
            bad "sound 0.6 s before the pictures ($c): exit $rc: $(cat "$T/err")"
        # and 1 s after them
        ff -itsoffset 0.6 -i "$T/v2s.mkv" -f lavfi -i "sine=d=3.6" -map 0:v -map 1:a -c:v $vc -c:a aac "$T/late.$c"
        "$OMCTI" -q -i "$T/late.$c" -o "$T/out.mkv" -y 2>"$T/err"; rc=$?
        [ $rc -eq 0 ] && [ ! -s "$T/err" ] && ok ||
            bad "sound 0.6 s before and 1 s after the pictures ($c): exit $rc: $(cat "$T/err")"
    done
    rm -f "$T/out.mkv"
    # a stream that starts at 1e9 s (a capture's clock): FFmpeg's Matroska
    # muxer writes the track's end time, 277777:46:41, as its DURATION tag,
    # more hour digits than av_parse_time() takes; not "ends early"
    ff -f lavfi -i "testsrc2=s=64x48:r=25:d=1" -c:v ffv1 -output_ts_offset 1000000000 "$T/late.mkv"
    "$OMCTI" -q -i "$T/late.mkv" -o "$T/out.mkv" -y 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && [ ! -s "$T/err" ] && ok ||
        bad "a stream that starts at 1e9 s: exit $rc: $(cat "$T/err")"
    rm -f "$T/out.mkv"
    for fmt in yuv420p10le yuv422p yuv444p rgb24 pal8; do
        ff -f lavfi -i "testsrc2=s=64x48:r=25:d=0.4" -pix_fmt $fmt -c:v ffv1 "$T/$fmt.mkv" 2>/dev/null ||
            ff -f lavfi -i "testsrc2=s=64x48:r=25:d=0.4" -pix_fmt $fmt -c:v png "$T/$fmt.mkv"
        row "$fmt input converted" 0 "processed as 8-bit 4:2:0" "$OMCTI" -i "$T/$fmt.mkv" -o "$T/out.mkv" --lossless
        got=$(ffprobe -v error -select_streams v -show_entries stream=pix_fmt -of csv=p=0 "$T/out.mkv")
        [ "$got" = "$fmt" ] && ok || echo "note: $fmt written as $got"
    done
    # variable frame rate: converted at a constant output rate, the output
    # frames placed by the input's timestamps (not by frame count), with a note
    ff -f lavfi -i "testsrc2=s=64x48:r=25:d=1" -f lavfi -i "testsrc2=s=64x48:r=10:d=1" \
        -filter_complex "[0][1]concat=n=2:v=1" -fps_mode vfr -c:v ffv1 "$T/vfr.mkv"
    row "variable frame rate"  0 "variable frame rate" "$OMCTI" -i "$T/vfr.mkv" -o "$T/out.mkv" --lossless
    grep -q "has a variable frame rate; output frames are placed by its timestamps" "$T/err" && ok ||
        bad "variable frame rate: the note does not say the timestamps place the frames: $(cat "$T/err")"
    # two pictures with one timestamp: the whole run places the second a
    # frame on; where every picture then has its frame, the split modes go
    # by picture numbers and give the same video; where not (a rate that
    # changes, 25 then 50 fps), they refuse (they went by picture count and
    # gave another video than the whole run: 100 pictures against 77)
    ff -f lavfi -i "testsrc2=s=64x48:r=25:d=0.8" -vf "setpts='if(eq(N,5),4,N)/(25*TB)'" \
        -fps_mode passthrough -c:v ffv1 "$T/rep.mkv"
    "$OMCTI" -q -i "$T/rep.mkv" -o "$T/rep1.y4m" 2>"$T/err" && "$OMCTI" -q -i "$T/rep.mkv" -o "$T/rep2.y4m" --workers 2 2>>"$T/err" &&
        cmp -s "$T/rep1.y4m" "$T/rep2.y4m" && ok || bad "a repeated timestamp, --workers 2: not the whole run's frames: $(cat "$T/err")"
    rm -f "$T/rep1.y4m" "$T/rep2.y4m"
    ff -f lavfi -i "testsrc2=s=64x48:r=25:d=2" -vf "setpts='if(lt(N,25),N*2,50+(N-25))/(50*TB)'" \
        -c:v libx264 -fps_mode passthrough "$T/rep50.mkv"
    row "a repeated timestamp and 25 then 50 fps, --workers 2" 1 "has pictures that share a timestamp, and its timestamps do not give one picture per frame" "$OMCTI" -q -i "$T/rep50.mkv" -o "$T/out.mkv" --workers 2
    row "a repeated timestamp and 25 then 50 fps, --segment 0/2" 1 "convert it in one run" "$OMCTI" -q -i "$T/rep50.mkv" -o "$T/out.mkv" --segment 0/2
    # resolution change mid-stream: two H.264 transport streams of different sizes, concatenated
    ff -f lavfi -i "testsrc2=s=64x48:r=25:d=1" -c:v libx264 -f mpegts "$T/a.ts"
    ff -f lavfi -i "testsrc2=s=96x64:r=25:d=1" -c:v libx264 -f mpegts "$T/b.ts"
    cat "$T/a.ts" "$T/b.ts" > "$T/change.ts"
    row "resolution change"    1 "size changes" "$OMCTI" -i "$T/change.ts" -o "$T/out.mkv"
else
    skipped "FFmpeg rows (built without FFmpeg or no ffmpeg CLI)"
fi

echo "errors_test: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
