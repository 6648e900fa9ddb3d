#!/usr/bin/env bash
# Two (or more) GPUs of one host: end-to-end 1080p 2x, y4m in and out, one
# GPU (--engine cuda) against all of them (--devices all), frames compared.
#   [W=/dev/shm/dir] tests/cuda/device_multi.sh [CLIP.y4m] [LOOPS]   (W: where the clip and outputs go)
# Builds FFmpeg-less; writes logs under $OUT (or ./device-out).
set -u
CLIP=${1:-.data/flower_1080p.y4m} LOOPS=${2:-12}
OUT=${OUT:-$PWD/device-out}; mkdir -p "$OUT"
B=build-multi W=${W:-/tmp/omcti-multi}
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0
exec > >(tee "$OUT/multi.txt") 2>&1
nvidia-smi -L; nproc
rm -rf $B; meson setup $B -Dffmpeg=disabled -Dbuildtype=release >/dev/null && ninja -C $B >/dev/null || { echo "build failed"; exit 1; }
mkdir -p $W
# A longer clip: the frames of CLIP repeated LOOPS times (one header).
hdr=$(head -1 "$CLIP" | wc -c)
{ head -1 "$CLIP"; for _ in $(seq "$LOOPS"); do tail -c +$((hdr + 1)) "$CLIP"; done; } > $W/long.y4m
read -r w h fn fd n < <($B/tests/y4mtool info $W/long.y4m); echo "clip: ${w}x$h, $n frames"
run() {   # NAME ARGS...
    local name=$1; shift
    local t0 t1; t0=$(date +%s.%N)
    $B/src/cli/omcti -q -y -i $W/long.y4m -o $W/$name.y4m "$@" || { echo "$name failed"; return 1; }
    t1=$(date +%s.%N)
    awk -v a=$t0 -v b=$t1 -v n=$((2 * n)) -v name="$name" 'BEGIN{printf "%-12s %6.2f s  %7.1f output fps\n", name, b-a, n/(b-a)}'
}
for round in 1 2; do
    echo "--- round $round"
    run one-gpu --engine cuda
    run all-gpus --engine cuda --devices all
    run cpu --engine cpu
done
cmp -s $W/one-gpu.y4m $W/all-gpus.y4m && echo "one-gpu and all-gpus outputs: identical" || echo "one-gpu and all-gpus outputs: DIFFER"
cmp -s $W/one-gpu.y4m $W/cpu.y4m && echo "cuda and cpu outputs: identical" || echo "cuda and cpu outputs: DIFFER"
rm -rf $W
