#!/usr/bin/env bash
# The GPU machine's check at odd and extreme picture sizes: synthetic clips
# (moving_texture_y4m.py: numpy, no FFmpeg there) from 1x1 to 8K UHD, strips
# one or two pixels high or wide, 16384 wide, 8200 high; each converted by
# both engines (the CPU at 3 threads) with the default settings, blocks of 8
# and 32, a full search, --slowmo 3 and --fps 60, and compared byte for byte.
# Prints "same: ..." or "DIFFERENT: ..." per conversion, then the 8K
# conversion's time, host memory and GPU memory on the CUDA engine. Exit 1
# when a conversion failed or differed.
#   tests/cuda/sizes_check.sh        (after device_check.sh, which builds build-dev)
set -u
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
B=build-dev W=${W:-/tmp/omcti-sizes}
here=$(dirname "$0")
[ -x $B/src/cli/omcti ] || { meson setup $B -Dffmpeg=disabled >/dev/null 2>&1 && ninja -C $B >/dev/null; } ||
    { echo "build failed"; exit 1; }
O=$B/src/cli/omcti
mkdir -p $W
failed=0
same() {   # LABEL CLIP ARGS...: the CPU (3 threads) against CUDA
    local label=$1 c=$2; shift 2
    $O -q -y -i "$c" -o $W/a.y4m --engine cpu --threads 3 "$@"; local ra=$?
    $O -q -y -i "$c" -o $W/b.y4m --engine cuda "$@"; local rb=$?
    if [ $ra != 0 ] || [ $rb != 0 ]; then echo "FAILED (cpu $ra, cuda $rb): $label $*"; failed=1
    elif cmp -s $W/a.y4m $W/b.y4m; then echo "same: $label $*"
    else echo "DIFFERENT: $label $*"; failed=1; fi
}
for s in 1x1 2x2 3x5 9x9 17x33 33x17 63x65 130x70 250x2 2x250 517x389 1921x1081; do
    c=$W/$s.y4m; python3 $here/moving_texture_y4m.py ${s%x*} ${s#*x} 14 $c
    same $s $c
    same $s $c --block 8
    same $s $c --block 32
    same $s $c --search full --range 24
    same $s $c --slowmo 3
    same $s $c --fps 60
done
c=$W/4097x2161.y4m; python3 $here/moving_texture_y4m.py 4097 2161 6 $c
same 4097x2161 $c
same 4097x2161 $c --block 8
for s in 16384x64 64x8200; do
    c=$W/$s.y4m; python3 $here/moving_texture_y4m.py ${s%x*} ${s#*x} 6 $c
    same $s $c
done
c=$W/7680x4320.y4m; python3 $here/moving_texture_y4m.py 7680 4320 5 $c
same 7680x4320 $c
( while sleep 0.2; do nvidia-smi --query-gpu=memory.used --format=csv,noheader; done ) > $W/mem.txt &
m=$!
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v $O -q -y -i $c -o $W/b.y4m --engine cuda 2>&1 | grep -E 'Maximum resident|Elapsed'
else
    $O -q -y -i $c -o $W/b.y4m --engine cuda
fi
kill $m
echo "GPU memory used, peak of 0.2 s samples: $(sort -n $W/mem.txt | tail -1)"
rm -rf $W
exit $failed
