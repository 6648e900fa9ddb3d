#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets that read files omcti makes or
# reads (committed under corpus/; rerun only to change them): tiny
# containers for fuzz_ffmpeg_reader, frame indexes for fuzz_frame_index,
# bundles of --segment pieces for fuzz_join. Each file is a few KB.
# usage: make_corpus.sh OMCTI Y4MTOOL [CORPUS_DIR]
set -eu
OMCTI=$1 Y4M=$2 C=${3:-$(dirname "$0")/corpus}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
ff() { ffmpeg -v error -y "$@"; }
src="testsrc2=s=32x32:r=25:d=0.2"

r=$C/ffmpeg_reader; mkdir -p "$r"
ff -f lavfi -i "$src" -c:v ffv1 "$r/ffv1.mkv"
ff -f lavfi -i "$src" -c:v libx264 -bf 2 -g 4 -preset ultrafast "$r/h264-bframes.mkv"
ff -f lavfi -i "$src" -f lavfi -i "sine=d=0.2:r=8000" -c:v libx264 -preset ultrafast -c:a pcm_s16le -shortest "$r/h264-audio.mov"
ff -f lavfi -i "$src" -c:v libx264 -preset ultrafast -movflags +faststart "$r/h264.mp4"
ff -f lavfi -i "$src" -c:v mpeg4 "$r/mpeg4.avi"
ff -f lavfi -i "testsrc2=s=16x16:r=25:d=0.12" -c:v rawvideo -pix_fmt yuv420p "$r/raw.nut"
ff -f lavfi -i "$src" -c:v libx264 -preset ultrafast -f mpegts "$r/h264.ts"
ff -f lavfi -i "testsrc2=s=16x16:r=25:d=0.12" -pix_fmt yuv422p -f yuv4mpegpipe "$r/c422.y4m"

x=$C/frame_index; mkdir -p "$x"
printf 'omcti-frame-index 1\nfile 27725 1763920000123456789\nkind offset 0\nframes 6\nkeys 1\n35\n4649\n9263\n13877\n18491\n23105\n' > "$x/y4m"
printf 'omcti-frame-index 1\nfile 90000 1763920000000000000\nkind pts 0\nframes 5\nkeys 1\n-2\n0\n512\n1024\n1536\n' > "$x/pts"
printf 'omcti-frame-index 1\nfile 90000 1763920000000000000\nkind pts 1\nframes 7\nkeys 0\n' > "$x/pts-nokeys"
printf 'omcti-frame-index 1\nfile 0 0\nkind pts 0\nframes 0\nkeys 1\n' > "$x/empty"

j=$C/join; mkdir -p "$j"
bundle() {   # OUT EXT ORDER PIECES...: the bundle of fuzz_join.c
    local out=$1 ext=$2 order=$3; shift 3
    { printf 'omcti-join-bundle %s %s\n' "$ext" "$order"
      local first=1
      for p in "$@"; do
          [ $first = 1 ] || printf '\n--8<--\n'; first=0
          cat "$p.sum"; printf '\n--8<--\n'; cat "$p"
      done; } > "$out"
}
"$Y4M" gen 16 16 8 > "$T/in.y4m"
for i in 0 1 2; do "$OMCTI" -q -i "$T/in.y4m" -o "$T/p$i.y4m" --segment $i/3 --threads 1; done
bundle "$j/y4m-in-order" y4m "0 1 2" "$T"/p{0,1,2}.y4m
bundle "$j/y4m-shuffled" y4m "2 0 1" "$T"/p{0,1,2}.y4m
bundle "$j/y4m-missing" y4m "0 2" "$T"/p{0,1,2}.y4m
ff -f lavfi -i "testsrc2=s=16x16:r=25:d=0.32" -c:v libx264 -preset ultrafast -g 4 "$T/in.mkv"
for i in 0 1 2; do "$OMCTI" -q -i "$T/in.mkv" -o "$T/p$i.mkv" --segment $i/3 --threads 1 --crf 40; done
bundle "$j/mkv-in-order" mkv "0 1 2" "$T"/p{0,1,2}.mkv
bundle "$j/mkv-shuffled" mkv "1 2 0" "$T"/p{0,1,2}.mkv
bundle "$j/mkv-fix" mkv "fix 0 1 2" "$T"/p{0,1,2}.mkv
bundle "$j/y4m-fix" y4m "fix 2 1 0" "$T"/p{0,1,2}.y4m
ls -l "$r" "$x" "$j"
