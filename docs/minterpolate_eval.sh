#!/bin/sh
# Scores FFmpeg's minterpolate with the drop-odd-frames protocol of
# `omcti eval`, on the same odd frames and with the same metrics:
#   docs/minterpolate_eval.sh CLIP FRAMES [OMCTI] [extra omcti eval options]
# keeps the even frames of the first FRAMES frames, retimes them to the
# original rate as exact frame times (4 frames more than scored: minterpolate
# drops its last in-between frames), lets minterpolate (default mci/obmc/epzs, ±32) double the
# rate, and hands that to `omcti eval --compare`, which also runs omcti,
# mcti, blend and repeat on the same frames.
set -eu
clip=$1
frames=$2
omcti=${3:-build/src/cli/omcti}
[ $# -ge 3 ] && shift 3 || shift $#
command -v ffmpeg >/dev/null || { echo "minterpolate_eval: ffmpeg not found" >&2; exit 1; }
rate=$(ffprobe -v error -select_streams v:0 -show_entries stream=r_frame_rate -of csv=p=0 "$clip")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The even frames go through a y4m file, whose frames carry exact times (frame n at
# n/rate). Retimed inside one filter chain, a Matroska clip keeps its 1/1000 s time
# base, so at 30, 24, 15 or 12 fps the times are rounded (0, 33, 66, 100 ms; setpts's
# floating-point division even gives 699 for 700 ms at 10 fps), and
# minterpolate, which weighs and pairs pictures by their times, gives other in-between
# pictures: 2.4 dB lower on night_drive (42.13 against 44.50 dB with exact times).
ffmpeg -nostdin -loglevel error -i "$clip" -an \
  -vf "trim=end_frame=$((frames + 4)),select='not(mod(n\,2))'" -fps_mode passthrough \
  -pix_fmt yuv420p -r "$rate" -f yuv4mpegpipe "$tmp/even.y4m"
start=$(date +%s.%N)
ffmpeg -nostdin -loglevel error -i "$tmp/even.y4m" -vf "minterpolate=fps=2*$rate" \
  -f yuv4mpegpipe "$tmp/mi.y4m"
end=$(date +%s.%N)
echo "minterpolate: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') s for $frames output frames"
"$omcti" eval -i "$clip" --frames "$frames" --compare "$tmp/mi.y4m=minterpolate" "$@"
