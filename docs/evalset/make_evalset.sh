#!/bin/sh
# Rebuilds the evaluation set of issue 16 (docs/quality.md) from its public sources:
#   docs/evalset/make_evalset.sh OUTDIR [CACHE] [MIRRORS]
# OUTDIR  receives NAME.mkv (yuv420p FFV1, lossless) for every clip of sources.txt and
#         pan_DDD.mkv for the pan sweep (DDD = 016 ... 128 px between two kept frames).
# CACHE   keeps the downloaded source files (default OUTDIR/src).
# MIRRORS a folder of git mirrors named OWNER+NAME/repo (optional): a source is taken
#         from there with `git show COMMIT:PATH` before it is downloaded from
#         raw.githubusercontent.com at the recorded commit.
# OUTDIR/fades and OUTDIR/extra receive the fades and dissolves, the zooms and the credits,
# OUTDIR/more the clips of more.txt, OUTDIR/fresh, OUTDIR/fresh2, OUTDIR/fresh3 and OUTDIR/hd
# those of fresh.txt, fresh2.txt, fresh3.txt and hd.txt (docs/quality.md).
# Clips are data: keep OUTDIR out of git. Needs ffmpeg, ffprobe, git or curl, and the
# DejaVu Sans font (Debian: fonts-dejavu-core) for the credits.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [CACHE] [MIRRORS]" >&2; exit 2; }
out=$1
cache=${2:-$out/src}
mirrors=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" "$cache"

# fetch_source REPO COMMIT PATH -> prints the cached file's name
fetch_source() {
    repo=$1 commit=$2 path=$3
    dst="$cache/$(echo "$repo" | tr / +)_$(echo "$commit" | cut -c1-12)_$(basename "$path")"
    if [ ! -s "$dst" ]; then
        m="$mirrors/$(echo "$repo" | tr / +)/repo"
        [ -d "$m/.git" ] && m="$m/.git"
        if [ -n "$mirrors" ] && git -C "$m" cat-file -e "$commit:$path" 2>/dev/null; then
            git -C "$m" show "$commit:$path" > "$dst.tmp"
        else
            curl -fsSL -o "$dst.tmp" "https://raw.githubusercontent.com/$repo/$commit/$path"
        fi
        mv "$dst.tmp" "$dst"
    fi
    echo "$dst"
}

# build_list LIST DIR: every clip of LIST (the format of sources.txt) into DIR
build_list() {
grep -v '^#' "$1" | grep -v '^$' |
while IFS='|' read -r name kind repo commit path start frames step filter rate; do
    src=$(fetch_source "$repo" "$commit" "$path")
    if [ "$name" = still ]; then
        # The pan sweep: 13 frames, the window moves D/2 right and D/8 down per frame,
        # so D and D/4 between the kept frames F0, F2, ... (the ground truth is an
        # exact crop: no resampling between frames).
        ffmpeg -nostdin -v error -y -i "$src" -vf "$filter" -frames:v 1 "$out/still_4k.png"
        for d in 16 32 48 64 96 128; do
            ffmpeg -nostdin -v error -y -loop 1 -framerate 25 -i "$out/still_4k.png" \
                -vf "crop=1280:720:400+n*$d/2:600+n*$d/8,format=yuv420p" -frames:v 13 \
                -c:v ffv1 "$out/pan_$(printf %03d $d).mkv"
        done
        continue
    fi
    # START seconds in, FRAMES*STEP source pictures, every STEP-th kept, then the filter.
    ffmpeg -nostdin -v error -y -ss "$start" -i "$src" -an \
        -vf "select='not(mod(n\,$step))',setpts=N/($rate)/TB,$filter,format=yuv420p" \
        -frames:v "$frames" -r "$rate" -c:v ffv1 "$2/$name.mkv"
    echo "$name: $(ffprobe -v error -select_streams v:0 -count_frames -show_entries \
        stream=width,height,r_frame_rate,nb_read_frames -of csv=p=0 "$2/$name.mkv")  ($kind)"
done
}
build_list "$here/sources.txt" "$out"
mkdir -p "$out/more"
build_list "$here/more.txt" "$out/more"
mkdir -p "$out/fresh"
build_list "$here/fresh.txt" "$out/fresh"
mkdir -p "$out/fresh2"
build_list "$here/fresh2.txt" "$out/fresh2"
mkdir -p "$out/fresh3"
build_list "$here/fresh3.txt" "$out/fresh3"
mkdir -p "$out/hd"
build_list "$here/hd.txt" "$out/hd"
# Fades (docs/quality.md, "Scene cuts"): the first 34 frames of five clips of the set,
# fading out to black from frame 6 and in from black from frame 4 over 16 frames each,
# into OUTDIR/fades/NAME_out.mkv and NAME_in.mkv (score them with run_eval.sh OUTDIR/fades).
mkdir -p "$out/fades"
for name in football_kick soccer_broadcast_15fps street_dance_25fps talking_closeup volleyball; do
    for f in "out:start_frame=6" "in:start_frame=4"; do
        ffmpeg -nostdin -v error -y -i "$out/$name.mkv" -an \
            -vf "trim=end_frame=34,fade=t=$f:nb_frames=16,format=yuv420p" \
            -c:v ffv1 "$out/fades/${name}_${f%%:*}.mkv"
    done
done
# Two dissolves (xfade) between clips of the set, into OUTDIR/fades/dissolve_*.mkv.
ffmpeg -nostdin -v error -y -i "$out/volleyball.mkv" -i "$out/football_kick.mkv" -filter_complex \
    "[0]trim=end_frame=20,setpts=PTS-STARTPTS,fps=30[a];[1]trim=end_frame=30,setpts=PTS-STARTPTS,fps=30[b];[a][b]xfade=transition=fade:duration=0.5:offset=0.2,format=yuv420p" \
    -c:v ffv1 "$out/fades/dissolve_volleyball_football.mkv"
ffmpeg -nostdin -v error -y -i "$out/talking_closeup.mkv" -i "$out/street_dance_25fps.mkv" -filter_complex \
    "[0]trim=end_frame=20,setpts=PTS-STARTPTS,scale=1280:720,fps=25[a];[1]trim=end_frame=30,setpts=PTS-STARTPTS,fps=25[b];[a][b]xfade=transition=fade:duration=0.6:offset=0.2,format=yuv420p" \
    -c:v ffv1 "$out/fades/dissolve_talking_street.mkv"
# Zooms into the still of the pan sweep, 0.8 %, 2 % and 6 % between two kept frames (13
# frames), and credits (credits.txt, white on black) scrolling 12 and 30 px between two kept
# frames (25 frames), into OUTDIR/extra.
mkdir -p "$out/extra"
for z in 02:0.002 05:0.005 30:0.015; do
    ffmpeg -nostdin -v error -y -loop 1 -framerate 25 -i "$out/still_4k.png" \
        -vf "scale=w='trunc(2560*(1+${z#*:}*n*2)/2)*2':h=-2:eval=frame:flags=bicubic,crop=1280:720,format=yuv420p" \
        -frames:v 13 -c:v ffv1 "$out/extra/zoom_${z%%:*}.mkv"
done
font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
for sp in 6 15; do
    ffmpeg -nostdin -v error -y -f lavfi -i color=c=black:s=1280x720:r=24 -vf \
        "drawtext=fontfile=$font:textfile=$here/credits.txt:fontcolor=white:fontsize=36:line_spacing=14:x=(w-text_w)/2:y=40-n*$sp,format=yuv420p" \
        -frames:v 25 -c:v ffv1 "$out/extra/credits_$sp.mkv"
done
