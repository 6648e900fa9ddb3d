#!/usr/bin/env bash
# Tile-shape sweep of the full-search kernel on a GPU machine (chooses the
# automatic tile of kernels/me_kernels.cu): builds, runs the CUDA tests,
# then times every forced tile for blocks 8/16/32 and ranges 8/16/32.
#   tests/cuda/device_sweep.sh [CLIP.y4m]
set -u
CLIP=${1:-.data/flower_1080p.y4m}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=build-device
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee "$OUT/sweep.txt") 2>&1
rm -rf $B
meson setup $B -Dffmpeg=disabled -Dbuildtype=release >/dev/null 2>&1 || { echo setup failed; exit 1; }
timeout 300 ninja -C $B 2>&1 | grep -E "warning|error|FAILED" | head
OMCTI_TEST_Y4M=$PWD/$CLIP timeout 200 meson test -C $B --suite cuda --suite motion 2>&1 | grep "omcti:"
grep -E "pairs compared|cuda-equiv:" $B/meson-logs/testlog.txt
bench() { timeout 60 $B/tests/cuda/cuda_bench --y4m $CLIP --frames 2 --reps 200 --no-cpu "$@" |
          awk '/full kernel / && !/naive/ {print $(NF-3)}'; }
printf "%-6s %-6s %8s %8s %8s %8s\n" block range auto K5 K8 K11
for b in 8 16 32; do
    for r in 8 16 32; do
        line=$(printf "%-6s %-6s %8s" $b $r "$(bench --block $b --range $r)")
        for k in 5 8 11; do line="$line $(printf "%8s" "$(bench --block $b --range $r --tile $k)")"; done
        echo "$line"
    done
done
