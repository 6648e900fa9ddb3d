#!/usr/bin/env bash
# docs/benchmarks.md, "Segments through Slurm": the same clip converted by one
# run with 2 threads, then through the local Slurm cluster as N segments of
# 1 thread each (2 at a time on a 2-core machine), back to back, ROUNDS times.
# usage: tests/slurm/bench.sh BUILD_DIR [FRAMES] [SEGMENTS] [ROUNDS]
set -euo pipefail
B=${1:?build dir}; FRAMES=${2:-600}; N=${3:-2}; ROUNDS=${4:-2}
OMCTI=$B/src/cli/omcti
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/cluster.sh" start >/dev/null
eval "$("$HERE/cluster.sh" env)"
T=$(mktemp -d "${TMPDIR:-/tmp}/omcti-bench-XXXXXX")
trap 'rm -rf "$T"' EXIT
S=$HERE/../../../shared/samples/foreman_cif.mkv
if [ -f "$S" ]; then
    # foreman (100 frames) looped to FRAMES
    ffmpeg -v error -stream_loop $(( (FRAMES + 99) / 100 )) -i "$S" -frames:v "$FRAMES" \
        -f yuv4mpegpipe -pix_fmt yuv420p "$T/clip.y4m"
    clip="foreman_cif looped to $FRAMES frames"
else
    "$B/tests/y4mtool" gen 352 288 "$FRAMES" > "$T/clip.y4m"
    clip="y4mtool gen 352 288 $FRAMES"
fi
echo "clip: $clip; output FFV1 (--lossless) .mkv; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
    t0=$(date +%s.%N)
    "$OMCTI" -q -y -i "$T/clip.y4m" -o "$T/single.mkv" --lossless --threads 2
    t1=$(date +%s.%N)
    rm -rf "$T/work" "$T/farm.mkv"
    "$OMCTI" farm -q -i "$T/clip.y4m" -o "$T/farm.mkv" --segments "$N" --threads 1 --lossless \
        --workdir "$T/work" --wait --poll 0.2 >/dev/null
    t2=$(date +%s.%N)
    tj0=$(date +%s.%N)
    "$OMCTI" join -q -y -o "$T/j.mkv" "$T"/work/piece-*.mkv
    tj1=$(date +%s.%N)
    same=$(cmp -s <(ffmpeg -v error -i "$T/single.mkv" -f framemd5 - | grep -v '^#') \
                  <(ffmpeg -v error -i "$T/farm.mkv" -f framemd5 - | grep -v '^#') && echo yes || echo NO)
    awk -v r="$r" -v a="$t0" -v b="$t1" -v c="$t2" -v n="$N" -v s="$same" -v d="$tj0" -v e="$tj1" 'BEGIN {
        printf "round %d: single (2 threads) %.2f s; farm (%d segments x 1 thread) %.2f s; ratio %.3f; same frames: %s; join alone %.2f s\n",
               r, b - a, n, c - b, (c - b) / (b - a), s, e - d }'
done
