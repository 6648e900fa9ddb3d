#!/bin/sh
# Emulates a second block grid half a block off the first (docs/quality.md, "Issue 16,
# stop 39"): omcti's default 2x of a clip's even frames, once as they are and once cropped
# by S pixels at the left and top (its grid then lies S px off), the two averaged (rounded)
# wherever both cover the picture; PSNR-Y of each against the dropped frames, on the frames
# `omcti eval -i CLIP --frames N-4` scores (N: the clip's frames).
#   docs/evalset/two_grid_emulation.sh CLIP [OMCTI] [S]
# Needs ffmpeg, ffprobe and a python3 with numpy ($PYTHON, default python3).
set -eu
clip=$1
omcti=${2:-build/src/cli/omcti}
shift_px=${3:-8}
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
ffmpeg -nostdin -v error -i "$tmp/even.y4m" -vf "crop=iw-$shift_px:ih-$shift_px:$shift_px:$shift_px" \
    -f yuv4mpegpipe "$tmp/even_off.y4m"
"$omcti" -q -y -i "$tmp/even.y4m" -o "$tmp/a.y4m"
"$omcti" -q -y -i "$tmp/even_off.y4m" -o "$tmp/b.y4m"
"${PYTHON:-python3}" - "$tmp" "$shift_px" "$frames" "$(basename "$clip")" <<'PY'
import sys
import numpy as np

def luma(path):
    data = open(path, 'rb').read()
    head = data[:data.index(b'\n')].split()
    w = int([t[1:] for t in head if t[:1] == b'W'][0])
    h = int([t[1:] for t in head if t[:1] == b'H'][0])
    pos, size, out = data.index(b'\n') + 1, w * h * 3 // 2, []
    while pos < len(data):
        pos = data.index(b'\n', pos) + 1
        out.append(np.frombuffer(data, np.uint8, w * h, pos).reshape(h, w).astype(np.float64))
        pos += size
    return out

tmp, s, frames, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
full, a, b = luma(tmp + '/full.y4m'), luma(tmp + '/a.y4m'), luma(tmp + '/b.y4m')
psnr = lambda x, f: min(100.0, 10 * np.log10(255.0 ** 2 / max(((x - f) ** 2).mean(), 1e-10)))  # as omcti eval
odd = [i for i in range(1, frames, 2) if i < len(a) and i < len(b) and i + 1 < len(full)]
one = two = 0.0
for i in odd:
    avg = a[i].copy()
    avg[s:, s:] = np.floor((a[i][s:, s:] + b[i]) / 2 + 0.5)
    one += psnr(a[i], full[i])
    two += psnr(avg, full[i])
print('%s: omcti %.3f, two grids averaged %.3f (%+.3f), %d frames'
      % (name, one / len(odd), two / len(odd), (two - one) / len(odd), len(odd)))
PY
