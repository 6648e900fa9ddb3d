#!/usr/bin/env bash
# `omcti farm` on a real one-node Slurm cluster (cluster.sh): the farmed
# output has the single run's frames; a failing segment (its piece's name
# taken by a folder) leaves no output and a one-line error
# naming it and its log; the rerun converts only that segment; a damaged
# piece is found by its checksum, not by its existence.
# usage: farm_test.sh OMCTI Y4MTOOL HAVE_FFMPEG CLUSTER_SH
set -u
OMCTI=$1 Y4M=$2 HAVE_FFMPEG=$3 CLUSTER=$4
if ! command -v sbatch >/dev/null; then
    echo "slurm-farm: Slurm is not installed (apt-get install slurmctld slurmd slurm-client munge); skipped"
    exit 77
fi
started=0
if ! "$CLUSTER" status >/dev/null 2>&1; then
    "$CLUSTER" start; rc=$?
    [ $rc -eq 77 ] && { echo "slurm-farm: cannot start a local cluster; skipped"; exit 77; }
    [ $rc -ne 0 ] && { echo "FAIL: cluster.sh start: exit $rc"; exit 1; }
    started=1
fi
eval "$("$CLUSTER" env)"
T=$(mktemp -d "${TMPDIR:-/tmp}/omcti-farm-XXXXXX")
cleanup() { rm -rf "$T"; [ $started = 1 ] && "$CLUSTER" stop >/dev/null; }
trap cleanup EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect() { if eval "$2"; then ok; else bad "$1 ($2)"; fi; }

F=40; [ -n "${OMCTI_SANITIZED:-}" ] && F=24
if [ "$HAVE_FFMPEG" = 1 ]; then
    IN=$T/in.mp4 EXT=mkv OPTS=(--lossless)
    ffmpeg -v error -y -f lavfi -i testsrc2=size=352x288:rate=25 -frames:v $F -c:v libx264 \
        -g 50 -bf 3 -pix_fmt yuv420p "$IN"
    frames() { ffmpeg -v error -i "$1" -f framemd5 - | grep -v '^#' | awk -F, '{print $2, $6}'; }
else
    IN=$T/in.y4m EXT=y4m OPTS=()
    "$Y4M" gen 176 144 $F > "$IN"
    frames() { cat "$1"; }
fi
same() { cmp -s <(frames "$1") <(frames "$2"); }
"$OMCTI" -q -i "$IN" -o "$T/whole.$EXT" "${OPTS[@]}"
FARM=("$OMCTI" farm -i "$IN" --segments 4 --wait --poll 0.2 --threads 1 "${OPTS[@]}")

# 1. four segments through Slurm = the single run
"${FARM[@]}" -o "$T/out.$EXT" --workdir "$T/w1" >"$T/out" 2>"$T/err"
expect "farm exits 0" "[ $? -eq 0 ] || { cat '$T/err' >&2; false; }"
expect "farm prints the job ids" "grep -q 'submitted as job array [0-9]*; join as job [0-9]*' '$T/out'"
expect "farm reports progress" "grep -q 'segments done 4 / 4' '$T/err'"
expect "farmed frames = single run" "same '$T/whole.$EXT' '$T/out.$EXT'"
# a segment's log says what it did (its last line, as a run's), so that
# `tail` on a running or finished task's log shows its progress
expect "a segment's log ends with its summary" "tail -n 1 '$T/w1/logs/seg-1.log' | grep -q '^omcti: [0-9]* frames in, [0-9]* out'"
# the jobs run the launcher, which sets OpenMP's wait policy whatever
# environment sbatch passes on, not the program beside it
expect "the jobs run the launcher" "grep -q \"^exec '[^']*/omcti' \" '$T/w1/segment.sh' && grep -q \"^exec '[^']*/omcti' join\" '$T/w1/join.sh'"

# 1b. the rerun of a finished farm says it is done and where (it said
# "output ... already exists (use -y to overwrite)", exit 1): exit 0,
# nothing submitted, the output untouched; a file under the output's name
# older than the pieces is not the farm's result, and is still refused
cp -p "$T/out.$EXT" "$T/out.keep"
"${FARM[@]}" -o "$T/out.$EXT" --workdir "$T/w1" >"$T/out" 2>"$T/err"; rc=$?
expect "a finished farm's rerun exits 0" "[ $rc -eq 0 ] || { cat '$T/out' '$T/err' >&2; false; }"
expect "a finished farm's rerun says it is done" "grep -q \"^omcti: done already: '$T/out.$EXT' (joined from its 4 pieces in '.*w1', whose checksums match); nothing submitted\" '$T/out' && ! grep -q 'already exists' '$T/err' || { cat '$T/out' '$T/err' >&2; false; }"
expect "a finished farm's rerun submits nothing" "! grep -q 'job' '$T/out'"
expect "a finished farm's rerun leaves the output" "cmp -s '$T/out.$EXT' '$T/out.keep'"
touch -d '2001-01-01' "$T/out.$EXT"
"${FARM[@]}" -o "$T/out.$EXT" --workdir "$T/w1" >"$T/out" 2>"$T/err"; rc=$?
expect "an older file under the output's name: still refused" "[ $rc -eq 1 ] && grep -q \"^omcti: output '$T/out.$EXT' already exists (use -y to overwrite)\" '$T/err' && [ ! -s '$T/out' ] || { cat '$T/out' '$T/err' >&2; false; }"
rm -f "$T/out.keep"

# 2. segment 2 fails: no output, one line naming segment 2 and its log
# (a natural failure of segment 2 only: its piece's name is taken by a folder)
mkdir -p "$T/w2/piece-0002.$EXT"
"${FARM[@]}" -q -o "$T/f.$EXT" --workdir "$T/w2" >"$T/out" 2>"$T/err"
rc=$?
rmdir "$T/w2/piece-0002.$EXT"
expect "failed farm exits 1" "[ $rc -eq 1 ]"
expect "one error line" "[ \$(grep -c . '$T/err') -eq 1 ]"
expect "names segment 2 and its log" "grep -q '^omcti: farm: segment 2 of 4 failed.*directory.*log: .*/seg-2.log' '$T/err'"
expect "no output after a failed segment" "[ -z \"\$(ls -A '$T' | grep '^\\.\\?f\\.')\" ]"
stat -c '%n %i %Y' "$T"/w2/piece-000{0,1,3}.$EXT > "$T/before" 2>/dev/null

# 3. the rerun converts only segment 2
"${FARM[@]}" -o "$T/f.$EXT" --workdir "$T/w2" >"$T/out" 2>"$T/err"
expect "rerun exits 0" "[ $? -eq 0 ] || { cat '$T/err' >&2; false; }"
expect "rerun submits only segment 2" "grep -q 'segments 2 of 4 submitted' '$T/out' && grep -q '3 of 4 segments are done already' '$T/out'"
expect "other pieces untouched" "stat -c '%n %i %Y' '$T'/w2/piece-000{0,1,3}.$EXT | cmp -s - '$T/before'"
expect "rerun frames = single run" "same '$T/whole.$EXT' '$T/f.$EXT'"

# 4. a damaged piece (same size, one byte changed) is redone: checksums, not existence.
#    The byte is complemented: a fixed value can be the byte already there
#    (the piece's bytes follow the input's, which x264 makes a little
#    differently under MALLOC_PERTURB_), and then nothing is damaged
size=$(stat -c %s "$T/w2/piece-0001.$EXT")
byte=$(od -An -tu1 -j $((size - 100)) -N1 "$T/w2/piece-0001.$EXT" | tr -d ' ')
printf "\\$(printf %03o $((255 - byte)))" |
    dd of="$T/w2/piece-0001.$EXT" bs=1 seek=$((size - 100)) conv=notrunc status=none
expect "the piece is damaged" "[ \"\$(od -An -tu1 -j $((size - 100)) -N1 '$T/w2/piece-0001.$EXT' | tr -d ' ')\" = $((255 - byte)) ]"
"${FARM[@]}" -y -o "$T/f.$EXT" --workdir "$T/w2" >"$T/out" 2>"$T/err"
expect "damaged piece redone" "grep -q 'segments 1 of 4 submitted' '$T/out'"
expect "after repair frames = single run" "same '$T/whole.$EXT' '$T/f.$EXT'"

# 4b. a file that lacks pictures (a damaged Matroska cluster the demuxer
#     skips: the index has a hole): the farm plans over the frame slots as
#     its tasks do, and the pieces join into the single run's frames
if [ "$HAVE_FFMPEG" = 1 ]; then
    ffmpeg -v error -y -f lavfi -i testsrc=size=160x120:rate=25 -t 6 -c:v libx264 \
        -pix_fmt yuv420p -g 50 -bf 2 "$T/hb.mkv"
    python3 - "$T/hb.mkv" "$T/hole.mkv" <<'PY'
import json, subprocess, sys
d = bytearray(open(sys.argv[1], "rb").read())
pk = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                "packet=pos", "-of", "json", sys.argv[1]], capture_output=True, text=True).stdout)["packets"]
pos = int(pk[70]["pos"])
for i in range(pos, pos + 4): d[i] ^= 0xa5
open(sys.argv[2], "wb").write(d)
PY
    "$OMCTI" -q -i "$T/hole.mkv" -o "$T/hole-whole.y4m" 2>/dev/null
    "$OMCTI" farm -q -i "$T/hole.mkv" --segments 4 --wait --poll 0.2 --threads 1 \
        -o "$T/hole-farm.y4m" --workdir "$T/w4" >"$T/out" 2>"$T/err"
    expect "farm, a file with a hole: exits 0" "[ $? -eq 0 ] || { cat '$T/err' >&2; false; }"
    expect "farm, a file with a hole: the single run's frames" "cmp -s '$T/hole-whole.y4m' '$T/hole-farm.y4m'"
fi

# 4c. a rerun while the last submission's jobs are still queued or running
#     (farm without --wait, or its --wait stopped by Ctrl-C: "the jobs keep
#     running"): refused with one line naming them; it submitted every
#     segment again (two tasks on one piece) and a second join, which failed
#     on the output the first had written
"$OMCTI" farm -q -i "$IN" --segments 4 --threads 1 "${OPTS[@]}" -o "$T/r.$EXT" --workdir "$T/w4c" >"$T/out" 2>"$T/err"
expect "farm without --wait: exits 0" "[ $? -eq 0 ] || { cat '$T/err' >&2; false; }"
ids=$(sed -n 's/.*job array \([0-9]*\); join as job \([0-9]*\).*/\1 \2/p' "$T/out")
"$OMCTI" farm -q -i "$IN" --segments 4 --threads 1 "${OPTS[@]}" -o "$T/r.$EXT" --workdir "$T/w4c" >"$T/out2" 2>"$T/err"
rc=$?
expect "rerun while the jobs run: exit 1, one line naming them" "[ $rc -eq 1 ] && [ \$(grep -c . '$T/err') -eq 1 ] && grep -q \"^omcti: farm: the jobs ${ids% *} and ${ids#* } of the last submission .* still queued or running\" '$T/err' || { cat '$T/err' '$T/out2' >&2; false; }"
expect "rerun while the jobs run: nothing submitted" "[ ! -s '$T/out2' ]"
for _ in $(seq 600); do [ -z "$(squeue -h -j "${ids// /,}" 2>/dev/null)" ] && break; sleep 0.2; done
expect "the first submission's frames = single run" "same '$T/whole.$EXT' '$T/r.$EXT'"

# 5. hostile names: a workdir and output with '%', quotes, '$(' and a space
#    (Slurm's log-name patterns and the job scripts' shell quoting)
H="$T/w 100%j '\$(touch PWNED)\"x"
"${FARM[@]}" -o "$H.$EXT" --workdir "$H" >"$T/out" 2>"$T/err"
expect "farm, hostile names: exits 0" "[ $? -eq 0 ] || { cat '$T/err' >&2; false; }"
expect "farm, hostile names: the single run's frames" "same '$T/whole.$EXT' \"\$H.$EXT\""
expect "farm, hostile names: each segment's log under the workdir" "[ -f \"\$H/logs/seg-3.log\" ]"
expect "farm, hostile names: no code ran" "[ ! -e '$T/PWNED' ] && [ ! -e PWNED ] && [ ! -e \"\$H/PWNED\" ]"
"${FARM[@]}" -o "$T/b.$EXT" --workdir "$T/back\\slash" >"$T/out" 2>"$T/err"
expect "farm, a backslash in the workdir: refused" "[ $? -eq 2 ] && grep -q 'backslash' '$T/err'"

# 6. Slurm that does not answer for a while (a busy slurmctld times out):
#    no news, not a failure; --wait keeps following the jobs
mkdir -p "$T/flaky"
for cmd in scontrol squeue; do
    real=$(command -v $cmd)
    cat > "$T/flaky/$cmd" <<EOF
#!/bin/bash
[ -e "$T/flaky/t0" ] || date +%s > "$T/flaky/t0"
if [ \$(( \$(date +%s) - \$(cat "$T/flaky/t0") )) -lt 3 ]; then
    echo "$cmd: error: Socket timed out on send/recv operation" >&2; exit 1
fi
exec "$real" "\$@"
EOF
    chmod +x "$T/flaky/$cmd"
done
PATH="$T/flaky:$PATH" "${FARM[@]}" -o "$T/s.$EXT" --workdir "$T/w6" >"$T/out" 2>"$T/err"
expect "farm, Slurm silent for 3 s: exits 0" "[ $? -eq 0 ] || { cat '$T/err' >&2; false; }"
expect "farm, Slurm silent for 3 s: the single run's frames" "same '$T/whole.$EXT' '$T/s.$EXT'"

echo "slurm-farm: $pass passed, $fail failed"
[ $fail -eq 0 ]
