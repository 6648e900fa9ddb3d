#!/usr/bin/env bash
# Makes samples/clip.mkv, the clip the README's quick start converts: 3 s of
# the project's own synthetic scene (a panning texture and a moving disc,
# tests/tools/y4mtool.c) at 24 fps, 320x180, H.264 in Matroska.
# usage: samples/make_sample.sh BUILD_DIR   (needs the ffmpeg CLI)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
"$build/tests/y4mtool" gen 320 180 72 24 1 |
    ffmpeg -v error -y -f yuv4mpegpipe -i - -c:v libx264 -crf 18 -preset slow \
        -pix_fmt yuv420p -tune animation "$here/clip.mkv"
ls -l "$here/clip.mkv"
