#!/usr/bin/env bash
# A short GPU-machine check after a change outside kernels/: build
# FFmpeg-less, the unit suite, cuda-equiv on a real clip (fields and
# pictures, CUDA vs CPU), and end-to-end conversions compared byte for byte
# between the engines: default and full search, one device and --devices,
# for each clip given (clips with letterbox bars, damaged edge lines and
# scene cuts take the context's active-area and hold paths).
#   tests/cuda/device_check.sh [CLIP.y4m ...]
set -u
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
B=build-dev W=${W:-/tmp/omcti-check}
[ $# -gt 0 ] || set -- .data/flower_1080p.y4m
nvidia-smi -L; date -u
rm -rf $B
meson setup $B -Dffmpeg=disabled >/dev/null 2>&1 && ninja -C $B >/dev/null || { echo "build failed"; exit 1; }
O=$B/src/cli/omcti
mkdir -p $W
same() {   # LABEL ARGS-A -- ARGS-B: two conversions of C, compared
    local label=$1; shift
    local a=() b=(); while [ "$1" != -- ]; do a+=("$1"); shift; done; shift; b=("$@")
    $O -q -y -i "$C" -o $W/a.y4m "${a[@]}" && $O -q -y -i "$C" -o $W/b.y4m "${b[@]}" &&
        cmp -s $W/a.y4m $W/b.y4m && echo "same: $label" || echo "DIFFERENT: $label"
}
for C in "$@"; do
    echo "-- $C"
    same "default search, cpu vs cuda" --engine cpu -- --engine cuda
    same "full search, cpu vs cuda" --engine cpu --search full -- --engine cuda --search full
    same "default, cpu vs cuda --devices all" --engine cpu -- --engine cuda --devices all
    same "full, cpu vs cuda --devices 0" --engine cpu --search full -- --engine cuda --devices 0 --search full
    same "slow motion 4x, cpu vs cuda" --engine cpu --slowmo 4 -- --engine cuda --slowmo 4
    same "mcti, cpu vs cuda" --engine cpu --method mcti -- --engine cuda --method mcti
    same "blend, cpu vs cuda" --engine cpu --method blend -- --engine cuda --method blend
done
C=$1
timeout 420 $B/tests/cuda/test_cuda_equiv --y4m "$C" > $W/equiv.txt 2>&1; echo "cuda-equiv exit $?"
grep -E "compared|cuda-equiv:|FAIL" $W/equiv.txt | head -12
timeout 200 meson test -C $B --no-rebuild --suite unit 2>&1 | grep -E "^(Ok|Fail|Skipped):"
rm -rf $W
