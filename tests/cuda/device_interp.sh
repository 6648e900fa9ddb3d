#!/usr/bin/env bash
# One run on a GPU machine for the GPU interpolation (issue 5, part 2):
# build FFmpeg-less, equivalence tests (GPU pictures == CPU pictures),
# compute-sanitizer, kernel and engine benchmarks, end-to-end 1080p 2x
# conversion (y4m in and out) with cuda vs cpu, outputs compared.
#
#   tests/cuda/device_interp.sh [CLIP.y4m] [LOOPS]
#     CLIP: default .data/flower_1080p.y4m; LOOPS: the clip's frames are
#     repeated LOOPS times (default 20) for the end-to-end runs;
#     CUTS=FILE: a clip with scene cuts for the equivalence test.
#
# Logs under $OUT (or ./device-out); a summary is printed last. Every step
# has its own time limit so that one slow step cannot eat the others' time.
set -u
CLIP=${1:-.data/flower_1080p.y4m} LOOPS=${2:-20}
CUTS=${CUTS:-.data/foreman_qcif.y4m}   # a real clip with scene cuts, if present
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=build-device W=/tmp/omcti-interp
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
exec > >(tee "$OUT/interp.txt") 2>&1
step() { echo; echo "=== $* ($(date +%T))"; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,pcie.link.gen.max,pcie.link.width.max --format=csv || true
nvcc --version | tail -1; nproc; date -u

step "build"
rm -rf $B
meson setup $B -Dffmpeg=disabled -Dbuildtype=release >$OUT/setup.txt 2>&1 || { tail -30 $OUT/setup.txt; exit 1; }
grep -A4 Features $OUT/setup.txt
timeout 300 ninja -C $B 2>&1 | grep -E "warning|error|FAILED" | head -20
[ -x $B/tests/cuda/test_cuda_equiv ] || { echo "build failed"; exit 1; }

step "unit and CUDA suites (without cuda-equiv, run next)"
timeout 200 meson test -C $B cuda-nogpu cuda-cli-nogpu cuda-mc-emul filters checkasm motion_engine \
    --print-errorlogs 2>&1 | grep -E "^ *[0-9]+/|Ok:|Fail:"

step "cuda-equiv: fields and pictures, CUDA vs CPU, with the real clip"
cutarg=(); [ -f "$CUTS" ] && cutarg=(--y4m-cuts "$CUTS")
timeout 300 $B/tests/cuda/test_cuda_equiv --y4m $CLIP "${cutarg[@]}" > $OUT/equiv.txt 2>&1; echo "exit $?"
grep -E "device:|compared|cuda-equiv:|FAIL" $OUT/equiv.txt | head -20

step "compute-sanitizer memcheck (--quick --interp-only)"
timeout 200 compute-sanitizer --tool memcheck --print-limit 5 $B/tests/cuda/test_cuda_equiv --quick --interp-only 2>&1 | tail -4
step "compute-sanitizer racecheck (--tiny --interp-only)"
timeout 120 compute-sanitizer --tool racecheck --print-limit 5 $B/tests/cuda/test_cuda_equiv --tiny --interp-only 2>&1 | tail -3

step "kernel and engine benchmark (ME and filter), block 16, range 16"
timeout 240 $B/tests/cuda/cuda_bench --y4m $CLIP --frames 12 --reps 200 --cpu-threads 1,16 > $OUT/bench.txt 2>&1
cat $OUT/bench.txt | tail -24
for b in 8 32; do
    echo "--- block $b"
    timeout 60 $B/tests/cuda/cuda_bench --y4m $CLIP --frames 3 --reps 100 --block $b --no-cpu 2>&1 | tail -6
done

step "omcti bench (ME per pair and whole 2x per pair)"
timeout 200 $B/src/cli/omcti bench -i $CLIP --frames 12 --threads 1,16 --search full,diamond \
    --engine cpu,cuda 2>&1 | tr '\r' '\n' | grep -v "^bench:" | tee $OUT/omcti_bench.txt

step "end-to-end 1080p 2x, y4m in (local disk), y4m out"
mkdir -p $W
hdr=$(head -1 "$CLIP" | wc -c)
{ head -1 "$CLIP"; for _ in $(seq "$LOOPS"); do tail -c +$((hdr + 1)) "$CLIP"; done; } > $W/long.y4m
read -r w h fn fd n < <($B/tests/y4mtool info $W/long.y4m); echo "clip: ${w}x$h, $n frames, $(du -h $W/long.y4m | cut -f1)"
nout=$((2 * n - 1))
run() {   # LABEL OUTPUT ARGS...
    local label=$1 o=$2; shift 2
    local t0=$(date +%s.%N)
    timeout 120 $B/src/cli/omcti -q -i $W/long.y4m -o $o "$@" > /dev/null
    local rc=$? t1=$(date +%s.%N)
    awk -v l="$label" -v rc=$rc -v a=$t0 -v b=$t1 -v n=$nout \
        'BEGIN {printf "%-44s exit %d  %6.2f s  %7.1f output fps\n", l, rc, b - a, n / (b - a)}'
}
cat $W/long.y4m > /dev/null   # page cache
run "startup: cuda omcti, 3 frames" - --engine cuda --frames 3
run "cpu omcti full (16 threads) -> file" $W/cpu.y4m --engine cpu
run "cuda omcti full -> file" $W/cuda.y4m --engine cuda
cmp $W/cpu.y4m $W/cuda.y4m && echo "end-to-end outputs identical ($(du -h $W/cuda.y4m | cut -f1))"
rm -f $W/cpu.y4m
for i in 1 2; do run "cuda omcti full -> /dev/null (run $i)" - --engine cuda; done
run "cuda omcti diamond -> /dev/null" - --engine cuda --search diamond
run "cuda mcti full -> /dev/null" - --engine cuda --method mcti
run "cuda blend -> /dev/null" - --engine cuda --method blend
run "cpu omcti full -> /dev/null" - --engine cpu
run "I/O floor: cpu repeat -> /dev/null" - --engine cpu --method repeat
run "I/O floor: cpu repeat -> file" $W/rep.y4m --engine cpu --method repeat
rm -f $W/rep.y4m $W/cuda.y4m
TIMEFORMAT='%R s'; echo "y4m read alone (cat):"; time cat $W/long.y4m > /dev/null

step "summary"
grep -E "compared|cuda-equiv:" $OUT/equiv.txt
tail -14 $OUT/bench.txt
