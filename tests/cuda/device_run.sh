#!/usr/bin/env bash
# One run on a GPU machine: build FFmpeg-less, run the test suite (the CUDA
# equivalence test for real, then under compute-sanitizer), check the SASS,
# benchmark the kernels and the engines, time end-to-end conversion.
#
#   tests/cuda/device_run.sh [CLIP.y4m]      (default .data/flower_1080p.y4m)
#
# Writes its logs under $OUT (or ./device-out) and prints a summary last.
# Every step has its own time limit so that one slow step cannot eat the
# others' time.
set -u
CLIP=${1:-.data/flower_1080p.y4m}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
LOG=$OUT/log.txt
B=build-device
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee "$LOG") 2>&1

step() { echo; echo "=== $* ($(date +%T))"; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv || true
nvcc --version | tail -2
meson --version; ninja --version; nproc

step "build"
rm -rf $B
meson setup $B -Dffmpeg=disabled -Dbuildtype=release >$OUT/setup.txt 2>&1 ||
    meson setup --wipe $B -Dffmpeg=disabled -Dopenmp=disabled -Dbuildtype=release >>$OUT/setup.txt 2>&1 ||
    { tail -30 $OUT/setup.txt; exit 1; }
grep -A4 Features $OUT/setup.txt
timeout 300 ninja -C $B 2>&1 | grep -E "warning|error|FAILED" | head -20
[ -x $B/tests/cuda/test_cuda_equiv ] || { echo "build failed"; exit 1; }

step "test suite (no fuzz), equivalence with the real clip"
OMCTI_TEST_Y4M=$PWD/$CLIP timeout 300 meson test -C $B --no-suite fuzz --print-errorlogs 2>&1 |
    grep -vE "^ *$" | tail -25
cp $B/meson-logs/testlog.txt $OUT/testlog.txt 2>/dev/null
grep -E "device:|pairs compared|cuda-equiv:" $OUT/testlog.txt

step "compute-sanitizer memcheck (--quick)"
timeout 200 compute-sanitizer --tool memcheck --print-limit 5 $B/tests/cuda/test_cuda_equiv --quick 2>&1 | tail -4
step "compute-sanitizer racecheck (--tiny)"
timeout 150 compute-sanitizer --tool racecheck --print-limit 5 $B/tests/cuda/test_cuda_equiv --tiny 2>&1 | tail -4

step "SASS: instructions per kernel"
obj=$(find $B -name 'me_kernels.o' | head -1)
cuobjdump -sass "$obj" > $OUT/sass_full.txt 2>&1
awk '/Function :/ {f=$3} /VABSDIFF4/ {v[f]++} /LDS/ {l[f]++} /LDL|STL/ {loc[f]++} /SHF|PRMT/ {s[f]++}
     END {for (k in v) printf "%-60s VABSDIFF4 %5d  LDS %4d  SHF/PRMT %4d  local %d\n", k, v[k], l[k], s[k], loc[k]}' \
    $OUT/sass_full.txt | sort | tee $OUT/sass.txt
gzip -f $OUT/sass_full.txt

step "kernel and engine benchmark (1080p clip, block 16, range 16)"
timeout 240 $B/tests/cuda/cuda_bench --y4m $CLIP --frames 12 --reps 300 --cpu-threads 1,16 | tee $OUT/bench.txt
for k in 5 8 11; do
    echo "--- tile K=$k"
    timeout 60 $B/tests/cuda/cuda_bench --y4m $CLIP --frames 3 --reps 300 --tile $k --no-cpu | grep "full kernel "
done
echo "--- range 32, block 16 / range 16, block 8 / block 32"
timeout 60 $B/tests/cuda/cuda_bench --y4m $CLIP --frames 3 --reps 100 --range 32 --no-cpu | grep kernel
timeout 60 $B/tests/cuda/cuda_bench --y4m $CLIP --frames 3 --reps 100 --block 8 --no-cpu | grep kernel
timeout 60 $B/tests/cuda/cuda_bench --y4m $CLIP --frames 3 --reps 100 --block 32 --no-cpu | grep kernel

step "omcti bench (cpu 1,16 threads and cuda, same clip)"
timeout 240 $B/src/cli/omcti bench -i $CLIP --frames 12 --threads 1,16 --search full,diamond \
    --engine cpu,cuda 2>&1 | tr '\r' '\n' | grep -v "^bench:" | tee $OUT/omcti_bench.txt

step "end-to-end 2x conversion, y4m in, y4m out to /dev/null"
for eng in cpu cuda; do
    for s in full diamond; do
        t0=$(date +%s.%N)
        timeout 120 $B/src/cli/omcti -q -i $CLIP -o - --engine $eng --search $s > /dev/null
        rc=$?
        t1=$(date +%s.%N)
        echo "convert --engine $eng --search $s: exit $rc, $(awk "BEGIN {printf \"%.2f\", $t1 - $t0}") s"
    done
done

step "ncu on the tiled full-search kernel"
timeout 120 ncu --kernel-name regex:full_tiled --launch-skip 40 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
    --section InstructionStats --section LaunchStats \
    $B/tests/cuda/cuda_bench --y4m $CLIP --frames 2 --reps 50 --no-cpu > $OUT/ncu.txt 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc|Achieved Occupancy|Registers Per|Block Size|Theoretical Occ|One or More|pipe" $OUT/ncu.txt | head -20

step "summary"
tail -12 $OUT/bench.txt
grep -E "OK|FAIL|SKIP|TIMEOUT" $LOG | grep -E "omcti:" | sed 's/^ *//' | head -20
