#!/usr/bin/env bash
# Two (or more) GPUs of one host: end-to-end 1080p 2x, y4m in and out, one
# GPU against all of them (--devices all), outputs compared byte for byte.
#   [W=/dev/shm/dir] tests/cuda/device_multi.sh [CLIP.y4m] [LOOPS] [ROUNDS]
# (W: where the long clip and the outputs go.) Builds FFmpeg-less; the log
# goes to $OUT/multi.txt (or ./device-out).
#
# Runs, interleaved over ROUNDS rounds so that drift hits all alike:
#   one-gpu        --engine cuda                (the plain single run)
#   devices-0      --engine cuda --devices 0    (the workers' path, one GPU)
#   devices-all    --engine cuda --devices all
#   io-1, io-2     --engine cpu --method repeat, --workers 1 / 2: the I/O
#                  floor (read + write, no motion work) and how it scales
#   two-procs      two processes, --segment 0/2 and 1/2 on GPU 0 and 1, each
#                  its own file: what separate outputs would allow
# and the start-up alone (3 frames) of one GPU and of all.
set -u
CLIP=${1:-.data/flower_1080p.y4m} LOOPS=${2:-40} ROUNDS=${3:-3}
OUT=${OUT:-$PWD/device-out}; mkdir -p "$OUT"
B=build-multi W=${W:-/tmp/omcti-multi}
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
export NCCL_NVLS_ENABLE=0
exec > >(tee "$OUT/multi.txt") 2>&1
nvidia-smi --query-gpu=index,name,pcie.link.gen.max,pcie.link.width.max --format=csv
nproc; date -u; df -h "$(dirname "$W")" | tail -1
rm -rf $B; meson setup $B -Dffmpeg=disabled -Dbuildtype=release >/dev/null 2>&1 && ninja -C $B >/dev/null || { echo "build failed"; exit 1; }
mkdir -p $W
# A longer clip: the frames of CLIP repeated LOOPS times (one header).
hdr=$(head -1 "$CLIP" | wc -c)
{ head -1 "$CLIP"; for _ in $(seq "$LOOPS"); do tail -c +$((hdr + 1)) "$CLIP"; done; } > $W/long.y4m
read -r w h fn fd n < <($B/tests/y4mtool info $W/long.y4m); echo "clip: ${w}x$h, $n frames"
run() {   # NAME ARGS...
    local name=$1; shift
    rm -f $W/$name.y4m
    local t0 t1; t0=$(date +%s.%N)
    "$@" -q -y -i $W/long.y4m -o $W/$name.y4m || { echo "$name failed"; return 1; }
    t1=$(date +%s.%N)
    awk -v a=$t0 -v b=$t1 -v n=$((2 * n)) -v name="$name" 'BEGIN{printf "%-15s %6.2f s  %7.1f output fps\n", name, b-a, n/(b-a)}'
}
O=$B/src/cli/omcti
$O -q -y -i $W/long.y4m -o $W/warm.y4m --engine cuda --devices all --frames 3   # driver warm-up
for round in $(seq "$ROUNDS"); do
    echo "--- round $round"
    run one-gpu $O --engine cuda
    run devices-0 $O --engine cuda --devices 0
    run devices-all $O --engine cuda --devices all
    run io-1 $O --engine cpu --method repeat
    run io-2 $O --engine cpu --method repeat --workers 2
    t0=$(date +%s.%N)
    $O -q -y -i $W/long.y4m -o $W/seg0.y4m --engine cuda --device 0 --segment 0/2 & p=$!
    $O -q -y -i $W/long.y4m -o $W/seg1.y4m --engine cuda --device 1 --segment 1/2
    wait $p; t1=$(date +%s.%N)   # not a bare wait: it would wait for the tee above
    awk -v a=$t0 -v b=$t1 -v n=$((2 * n)) 'BEGIN{printf "%-15s %6.2f s  %7.1f output fps\n", "two-procs", b-a, n/(b-a)}'
    rm -f $W/seg*
    for x in "--engine cuda" "--engine cuda --devices all"; do
        t0=$(date +%s.%N); $O -q -y -i $W/long.y4m -o $W/s.y4m $x --frames 3; t1=$(date +%s.%N)
        awk -v a=$t0 -v b=$t1 -v x="$x" 'BEGIN{printf "start-up, 3 frames, %-28s %5.2f s\n", x, b-a}'
    done
    for x in devices-0 devices-all; do
        cmp -s $W/one-gpu.y4m $W/$x.y4m && echo "$x: identical to one-gpu" || echo "$x: DIFFERS from one-gpu"
        rm -f $W/$x.y4m
    done
    rm -f $W/io-*.y4m
done
echo "--- end to end into a pipe (no file written): one GPU"
t0=$(date +%s.%N); $O -q -i $W/long.y4m -o - --engine cuda > /dev/null; t1=$(date +%s.%N)
awk -v a=$t0 -v b=$t1 -v n=$((2 * n)) 'BEGIN{printf "one-gpu -> pipe %6.2f s  %7.1f output fps\n", b-a, n/(b-a)}'
$O -q -y -i $W/long.y4m -o $W/cpu.y4m --engine cpu --frames 24
$O -q -y -i $W/long.y4m -o $W/gpu.y4m --engine cuda --devices all --frames 24
cmp -s $W/cpu.y4m $W/gpu.y4m && echo "cuda (all devices) and cpu outputs (24 frames): identical" || echo "cuda and cpu outputs: DIFFER"
rm -rf $W
