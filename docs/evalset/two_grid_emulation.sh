#!/bin/sh
# Emulates block grids offset by half a block (docs/quality.md, "Issue 16, stop 39"):
# omcti's default 2x of a clip's even frames, once as they are and once more per offset
# grid, cropped by S pixels at the left and/or top (that run's grid then lies S px off),
# the outputs averaged (rounded) wherever all cover the picture, MARGIN px or more from
# its edges; PSNR-Y (capped at 100 dB) of the first run and of the average against the
# dropped frames, on the frames `omcti eval -i CLIP --frames N-4` scores (N: the clip's
# frames).
#   docs/evalset/two_grid_emulation.sh CLIP [OMCTI] [S] [MARGIN] [GRIDS]
# GRIDS 2 (default): offsets (0,0) and (S,S); 4: also (S,0) and (0,S).
# Needs ffmpeg, ffprobe and a python3 with numpy ($PYTHON, default python3).
set -eu
clip=$1
omcti=${2:-build/src/cli/omcti}
shift_px=${3:-8}
margin=${4:-0}
grids=${5:-2}
case $grids in 2) offsets="$shift_px,$shift_px" ;; 4) offsets="$shift_px,$shift_px $shift_px,0 0,$shift_px" ;;
    *) echo "two_grid_emulation: GRIDS is 2 or 4" >&2; exit 2 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$(ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames \
    -of csv=p=0 "$clip")
frames=$((n - 4))
# every decoded frame once, in order (as omcti eval reads them): without passthrough a gap
# in the timestamps repeats a frame and shifts every frame after it
ffmpeg -nostdin -v error -i "$clip" -frames:v "$frames" -fps_mode passthrough -pix_fmt yuv420p \
    -f yuv4mpegpipe "$tmp/full.y4m"
ffmpeg -nostdin -v error -i "$tmp/full.y4m" -vf "select='not(mod(n\,2))'" -fps_mode passthrough \
    -f yuv4mpegpipe "$tmp/even.y4m"
"$omcti" -q -y -i "$tmp/even.y4m" -o "$tmp/0,0.y4m"
for o in $offsets; do
    ox=${o%,*}; oy=${o#*,}
    ffmpeg -nostdin -v error -i "$tmp/even.y4m" -vf "crop=iw-$ox:ih-$oy:$ox:$oy" \
        -f yuv4mpegpipe "$tmp/even_$o.y4m"
    "$omcti" -q -y -i "$tmp/even_$o.y4m" -o "$tmp/$o.y4m"
done
"${PYTHON:-python3}" - "$tmp" "$frames" "$(basename "$clip")" "$margin" \
    "$(cd "$(dirname "$0")" && pwd)" $offsets <<'PY'
import sys
import numpy as np

sys.path.insert(0, sys.argv[5])
from lumaframes import luma_frames

tmp, frames, name, m = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
offs = [tuple(int(v) for v in o.split(',')) for o in sys.argv[6:]]
luma = lambda path: luma_frames(path, np.float64)
full, first = luma(tmp + '/full.y4m'), luma(tmp + '/0,0.y4m')
runs = [luma(tmp + '/%d,%d.y4m' % o) for o in offs]
psnr = lambda x, f: min(100.0, 10 * np.log10(255.0 ** 2 / max(((x - f) ** 2).mean(), 1e-10)))  # as omcti eval
odd = [i for i in range(1, frames, 2)
       if i < len(first) and all(i < len(r) for r in runs) and i + 1 < len(full)]
one = many = 0.0
for i in odd:
    h, w = first[i].shape
    y0, x0 = max(m, max(o[1] for o in offs)), max(m, max(o[0] for o in offs))
    acc = first[i][y0:h - m, x0:w - m].copy()
    for (ox, oy), r in zip(offs, runs):
        acc += r[i][y0 - oy:h - m - oy, x0 - ox:w - m - ox]
    avg = first[i].copy()
    avg[y0:h - m, x0:w - m] = np.floor(acc / (1 + len(runs)) + 0.5)
    one += psnr(first[i], full[i])
    many += psnr(avg, full[i])
print('%s: omcti %.3f, %d grids averaged %.3f (%+.3f), %d frames'
      % (name, one / len(odd), 1 + len(runs), many / len(odd), (many - one) / len(odd), len(odd)))
PY
