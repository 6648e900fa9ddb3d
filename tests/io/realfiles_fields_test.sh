#!/usr/bin/env bash
# Interlaced inputs and the y4m output's tags (issue 15 items 6 and 7): a
# notice for interlaced input and progressive flags on every output; the
# y4m chroma tag from the source's 4:2:0 siting and XCOLORRANGE from its
# range, read back by the y4m reader (y4m -> y4m keeps them).
# usage: realfiles_fields_test.sh OMCTI
set -u
OMCTI=$1
. "$(dirname "$0")/lib.sh"
need_ffmpeg
work_dir fields
hdr() { head -c 200 "$1" | head -1; }

# Interlaced H.264 (top field first), and an interlaced y4m.
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=320x240:rate=50 -t 1 \
    -vf tinterlace=interleave_top,setfield=tff -flags +ildct+ilme -c:v libx264 "$T/il.mp4" ||
    { echo "cannot make clips (libx264?)"; exit 77; }
[ "$(ffprobe -v error -show_entries stream=field_order -of csv=p=0 "$T/il.mp4")" = tt ] ||
    { echo "this ffmpeg does not flag the clip interlaced"; exit 77; }
"$OMCTI" -y -i "$T/il.mp4" -o "$T/o.mp4" 2>"$T/err"
check "interlaced mp4: exit 0" "[ $? -eq 0 ]"
check "interlaced mp4: one notice naming the field order" \
    "[ \$(grep -c 'is interlaced (top field first)' '$T/err') -eq 1 ]"
check "encoded output marked progressive" \
    "[ \"\$(ffprobe -v error -show_entries stream=field_order -of csv=p=0 '$T/o.mp4')\" = progressive ]"
"$OMCTI" -y -i "$T/il.mp4" -o "$T/o.y4m" 2>/dev/null
check "y4m output from interlaced input says Ip" "hdr '$T/o.y4m' | grep -q ' Ip '"
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=64x48:rate=10 -t 1 -vf setfield=bff \
    -f yuv4mpegpipe "$T/ib.y4m"
check "(the y4m input says Ib)" "hdr '$T/ib.y4m' | grep -q ' Ib '"
"$OMCTI" -y -i "$T/ib.y4m" -o "$T/ib_out.y4m" 2>"$T/err"
check "y4m Ib -> notice and Ip" \
    "grep -q 'is interlaced (bottom field first)' '$T/err' && hdr '$T/ib_out.y4m' | grep -q ' Ip '"
# The pictures' own flags where the stream states no field order (DV PAL,
# a camcorder's, bottom field first; MPEG-4 Part 2 in AVI) or one FFmpeg's
# CLI writes for either order ("tb" into Matroska for top-first pictures):
# these had no note, or "bottom field first"
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=720x576:rate=50 -t 0.4 \
    -vf interlace=scan=bff,format=yuv420p -c:v dvvideo -f dv "$T/pal.dv"
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=320x240:rate=50 -t 0.4 -vf interlace \
    -c:v mpeg4 -flags +ilme+ildct "$T/asp.avi"
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=320x240:rate=50 -t 0.4 -vf interlace \
    -c:v mpeg2video -flags +ilme+ildct "$T/tb.mkv"
check "(the DV and AVI streams state no field order, the mkv 'tb')" \
    "[ \"\$(for f in pal.dv asp.avi tb.mkv; do ffprobe -v error -show_entries stream=field_order -of csv=p=0 \"\$T/\$f\"; done | tr -d ',\n')\" = unknownunknowntb ]"
for f in pal.dv:bottom asp.avi:top tb.mkv:top; do
    "$OMCTI" -y -i "$T/${f%:*}" -o "$T/o.mkv" 2>"$T/err"
    check "${f%:*}: one note, ${f#*:} field first (the pictures' flags)" \
        "[ \$(grep -c 'is interlaced (${f#*:} field first); its frames are interpolated' '$T/err') -eq 1 ]"
done
"$OMCTI" -q -y -i "$T/ib.y4m" -o "$T/q.y4m" 2>"$T/err"
check "-q: no notice" "[ ! -s '$T/err' ]"

# y4m tags: chroma siting and range from an encoded source, and back.
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=64x48:rate=10 -t 1 -c:v libx264 \
    -pix_fmt yuv420p -color_range pc -chroma_sample_location center "$T/full.mp4"
ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=64x48:rate=10 -t 1 -c:v libx264 \
    -pix_fmt yuv420p -chroma_sample_location left -bsf:v h264_metadata=video_full_range_flag=0 \
    "$T/tv.mp4"
"$OMCTI" -q -y -i "$T/full.mp4" -o "$T/full.y4m"
check "full-range centre-sited source: C420jpeg XCOLORRANGE=FULL" \
    "hdr '$T/full.y4m' | grep -q ' C420jpeg XCOLORRANGE=FULL'"
"$OMCTI" -q -y -i "$T/tv.mp4" -o "$T/tv.y4m"
check "limited-range left-sited source: C420mpeg2 XCOLORRANGE=LIMITED" \
    "hdr '$T/tv.y4m' | grep -q ' C420mpeg2 XCOLORRANGE=LIMITED'"
"$OMCTI" -q -y -i "$T/tv.y4m" -o "$T/tv2.y4m"
check "y4m -> y4m keeps C420mpeg2 and XCOLORRANGE=LIMITED" \
    "hdr '$T/tv2.y4m' | grep -q ' C420mpeg2 XCOLORRANGE=LIMITED'"
"$OMCTI" -q -y -i "$T/full.y4m" -o "$T/full2.mp4"
check "y4m XCOLORRANGE=FULL -> mp4 tagged full range (pc)" \
    "[ \"\$(ffprobe -v error -show_entries stream=color_range -of csv=p=0 '$T/full2.mp4')\" = pc ]"
ffmpeg -nostdin -v error -y -i "$T/tv.mp4" -f yuv4mpegpipe -strict -1 "$T/paldv.y4m" 2>/dev/null
sed -i '1s/C420mpeg2/C420paldv/' "$T/paldv.y4m"
"$OMCTI" -q -y -i "$T/paldv.y4m" -o "$T/paldv2.y4m"
check "y4m -> y4m keeps C420paldv" "hdr '$T/paldv2.y4m' | grep -q ' C420paldv'"

finish realfiles-fields
