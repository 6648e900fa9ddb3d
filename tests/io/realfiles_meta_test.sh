#!/usr/bin/env bash
# What an output keeps of its input besides pictures and audio (issue 15
# items 1 and 3): the display matrix (rotation), the container metadata
# (title, creation time, location), chapters and subtitle streams, with
# their times; a notice for what a container cannot hold.
# usage: realfiles_meta_test.sh OMCTI
set -u
OMCTI=$1
. "$(dirname "$0")/lib.sh"
need_ffmpeg
work_dir meta
probe() { ffprobe -v error "$@" -of compact=p=0:nk=1; }

# A phone-like clip: H.264 + AAC in mp4, rotated 90 degrees by its display
# matrix, with a title, a creation time and a location.
ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i sine=f=440 -t 2 \
    -c:v libx264 -c:a aac -metadata title="Holiday" -metadata creation_time=2024-05-01T10:00:00Z \
    -metadata location=+48.8584+002.2945/ "$T/plain.mp4" || { echo "cannot make clips (libx264?)"; exit 77; }
ffmpeg -v error -y -i "$T/plain.mp4" -c copy -metadata:s:v:0 rotate=90 "$T/phone.mp4"
[ "$(probe -select_streams v -show_entries stream_side_data=rotation "$T/phone.mp4" | head -1)" = 90 ] ||
    { echo "this ffmpeg cannot make a rotated clip"; exit 77; }

"$OMCTI" -y -i "$T/phone.mp4" -o "$T/out.mp4" 2>"$T/err"
check "rotated mp4 converts" "[ $? -eq 0 ]"
check "the display matrix is kept (rotation 90)" \
    "[ \"\$(probe -select_streams v -show_entries stream_side_data=rotation '$T/out.mp4' | head -1)\" = 90 ]"
check "the pictures are not turned (160x120)" \
    "[ \"\$(ffprobe -v error -select_streams v -show_entries stream=width,height -of csv=p=0 '$T/out.mp4' | head -1 | cut -d, -f1,2)\" = 160,120 ]"
check "title kept" "[ \"\$(probe -show_entries format_tags=title '$T/out.mp4')\" = Holiday ]"
# (ffmpeg's own stream copy above drops the creation time: from the plain clip)
"$OMCTI" -q -y -i "$T/plain.mp4" -o "$T/plain_out.mp4"
check "creation time kept" "probe -show_entries format_tags=creation_time '$T/plain_out.mp4' | grep -q '^2024-05-01T10:00:00'"
check "location kept" "[ \"\$(probe -show_entries format_tags=location '$T/out.mp4')\" = +48.8584+002.2945/ ]"
check "audio still copied" "[ \"\$(probe -select_streams a -show_entries stream=codec_name '$T/out.mp4')\" = aac ]"
# AAC's priming packet (its encoder delay, before 0 under the mp4's edit
# list) is kept: the sound decodes as the input's, from its first sample
# (dropped, the first 21 ms decoded wrong)
pcm() { ffmpeg -nostdin -v error -i "$1" -map 0:a -f s16le - | md5sum; }
check "mp4 -> mp4: the audio decodes to the input's samples (AAC priming kept)" \
    "[ \"\$(pcm '$T/plain.mp4')\" = \"\$(pcm '$T/plain_out.mp4')\" ]"
"$OMCTI" -y -i "$T/phone.mp4" -o "$T/out.mov" 2>/dev/null
check "rotation kept in .mov" \
    "[ \"\$(probe -select_streams v -show_entries stream_side_data=rotation '$T/out.mov' | head -1)\" = 90 ]"
"$OMCTI" -y -i "$T/phone.mp4" -o "$T/out.mkv" 2>"$T/err"
check "mkv (no matrix in this FFmpeg): exit 0 and a notice naming the rotation" \
    "[ $? -eq 0 ] && grep -q 'cannot hold the input.s display matrix (shown rotated by 90 degrees)' '$T/err'"
check "mkv: the video track keeps its default flag beside the default audio" \
    "[ \"\$(probe -select_streams v -show_entries stream_disposition=default '$T/out.mkv')\" = 1 ]"
"$OMCTI" -y -i "$T/phone.mp4" -o "$T/out.y4m" 2>"$T/err"
check "y4m: a notice that the rotation is not kept" "grep -q 'rotated by 90 degrees' '$T/err'"
"$OMCTI" -q -y -i "$T/phone.mp4" -o "$T/q.mkv" 2>"$T/err"
check "-q: no notice" "[ ! -s '$T/err' ]"

# A mirrored display matrix (a selfie camera's, an editor's flip), which
# FFmpeg 5.1's CLI cannot write: the tkhd box's matrix (its a b / c d, 16.16,
# 40 bytes after the 'tkhd' fourcc in a version 0 box) patched. .mp4 and
# .mov keep all of it; the notes say what is lost, a flip (a flip left to
# right was told as a rotation by -180 degrees, one upside down as one by
# 0 degrees into .mkv and not at all into y4m)
mirror() {   # mirror IN OUT a b c d
    python3 - "$@" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
def box(start, end, kind):
    while start + 8 <= end:
        size, k = struct.unpack(">I4s", d[start:start + 8])
        if k == kind:
            return start, start + size
        start += size
    sys.exit("no " + kind.decode())
moov = box(0, len(d), b"moov")
trak = box(moov[0] + 8, moov[1], b"trak")   # the first: the video's
tkhd = box(trak[0] + 8, trak[1], b"tkhd")[0]
assert d[tkhd + 8] == 0
for i, v in zip((0, 1, 3, 4), sys.argv[3:7]):
    d[tkhd + 48 + 4 * i:tkhd + 52 + 4 * i] = struct.pack(">i", int(v) * 65536)
open(sys.argv[2], "wb").write(d)
PY
}
matrix() {   # the nine numbers of the video's display matrix, on one line
    probe -select_streams v -show_entries stream_side_data=displaymatrix "$1" | sed 's/\\n/ /g; s/[0-9]*://g' | tr -s ' \n' ' '
}
mirror "$T/plain.mp4" "$T/hflip.mp4" -1 0 0 1 && mirror "$T/plain.mp4" "$T/vflip.mp4" 1 0 0 -1 &&
    mirror "$T/plain.mp4" "$T/transp.mp4" 0 1 1 0
check "(the patched clips read as mirrored)" \
    "matrix '$T/hflip.mp4' | grep -q -- ' -65536 0 0 0 65536 0 0 0 1073741824 ' && matrix '$T/transp.mp4' | grep -q -- ' 0 65536 0 65536 0 0 0 0 1073741824 '"
"$OMCTI" -y -i "$T/hflip.mp4" -o "$T/hflip.mkv" 2>"$T/err"
check "mkv, a flip left to right: the note says so (not 'rotation (-180 degrees)')" \
    "[ $? -eq 0 ] && grep -q 'cannot hold the input.s display matrix (shown flipped left to right);' '$T/err' && ! grep -q 180 '$T/err'"
"$OMCTI" -y -i "$T/vflip.mp4" -o "$T/vflip.mkv" 2>"$T/err"
check "mkv, a flip upside down: named (the note said a rotation by 0 degrees)" \
    "grep -q 'display matrix (shown flipped upside down);' '$T/err'"
"$OMCTI" -y -i "$T/vflip.mp4" -o "$T/vflip.y4m" 2>"$T/err"
check "y4m, a flip upside down: a note (there was none)" \
    "grep -q 'vflip.mp4. is shown flipped upside down (display matrix); y4m cannot say so' '$T/err'"
"$OMCTI" -y -i "$T/transp.mp4" -o "$T/transp.webm" 2>"$T/err"
check "webm, a rotation and a flip: both named" \
    "grep -q 'display matrix (shown rotated by -90 degrees and flipped left to right);' '$T/err'"
for f in hflip.mp4 vflip.mov transp.mp4 transp.mov; do
    "$OMCTI" -y -i "$T/${f%.*}.mp4" -o "$T/m_$f" 2>"$T/err"
    check "$f: the whole matrix kept, no note" "[ \"\$(matrix '$T/m_$f')\" = \"\$(matrix '$T/${f%.*}.mp4')\" ] && ! grep -q note '$T/err'"
done

# A Matroska file of FFmpeg 4.x carries a phone's rotation as a 'rotate'
# tag (degrees clockwise; its muxer wrote the key in capitals), no display
# matrix: honoured as the matrix that FFmpeg 4.x's MOV muxer wrote for it
# (a=0 b=1 c=-1 d=0 for 90), kept in .mp4, named in a note for .mkv (before,
# it was dropped without a word, as FFmpeg 5.1 drops it)
ffmpeg -v error -y -i "$T/plain.mp4" -map 0:v -c copy -metadata:s:v:0 ROTATE=90 "$T/tag90.mkv"
mirror "$T/plain.mp4" "$T/cw90.mp4" 0 1 -1 0
check "(the old Matroska file has a rotate tag, no matrix)" \
    "[ \"\$(probe -select_streams v -show_entries stream_tags=rotate '$T/tag90.mkv')\" = 90 ] && [ -z \"\$(matrix '$T/tag90.mkv' | tr -d ' ')\" ]"
"$OMCTI" -y -i "$T/tag90.mkv" -o "$T/tag90.mp4" 2>"$T/err"
check "rotate tag 90 -> mp4: the display matrix of a 90 degree turn, no note" \
    "[ \"\$(matrix '$T/tag90.mp4')\" = \"\$(matrix '$T/cw90.mp4')\" ] && ! grep -q note '$T/err'"
"$OMCTI" -y -i "$T/tag90.mkv" -o "$T/tag90_out.mkv" 2>"$T/err"
check "rotate tag 90 -> mkv: a note naming the rotation" \
    "grep -q 'display matrix (shown rotated by -90 degrees);' '$T/err'"
ffmpeg -v error -y -i "$T/plain.mp4" -map 0:v -c copy -metadata:s:v:0 ROTATE=180 "$T/tag180.mkv"
"$OMCTI" -y -i "$T/tag180.mkv" -o "$T/tag180.y4m" 2>"$T/err"
check "rotate tag 180 -> y4m: a note" "grep -q 'is shown rotated by -180 degrees' '$T/err'"
ffmpeg -v error -y -i "$T/plain.mp4" -map 0:v -c copy -metadata:s:v:0 ROTATE=45 "$T/tag45.mkv"
"$OMCTI" -y -i "$T/tag45.mkv" -o "$T/tag45.mp4" 2>"$T/err"
check "rotate tag 45 (not a quarter turn): ignored, no matrix" \
    "[ $? -eq 0 ] && [ -z \"\$(matrix '$T/tag45.mp4' | tr -d ' ')\" ]"

# Cover art (an attached picture: a video stream of one still) beside the
# real video: the video is converted, its metadata and flags kept. FFmpeg
# ranks the cover first where the video is not default and flagged for the
# visually impaired (an audio-described cut); the metadata were the
# cover's (the title and language lost) before 2026-11-28.
ffmpeg -v error -y -f lavfi -i testsrc2=size=320x240 -frames:v 1 "$T/cover.jpg"
ffmpeg -v error -y -i "$T/plain.mp4" -attach "$T/cover.jpg" -metadata:s:t mimetype=image/jpeg \
    -metadata:s:t filename=cover.jpg -c copy -disposition:v:0 visual_impaired \
    -metadata:s:v:0 title="Audio described" -metadata:s:v:0 language=fra "$T/cover.mkv"
check "(the cover is an attached picture)" \
    "probe -select_streams v:1 -show_entries stream_disposition=attached_pic '$T/cover.mkv' | grep -qx 1"
"$OMCTI" -y -i "$T/cover.mkv" -o "$T/cover_out.mkv" 2>"$T/err"
check "video beside cover art: the video converted (160x120, 100 frames)" \
    "[ $? -eq 0 ] && [ \"\$(ffprobe -v error -count_frames -select_streams v -show_entries stream=width,nb_read_frames -of csv=p=0 '$T/cover_out.mkv')\" = 160,100 ]"
check "video beside cover art: its title, language and flag kept, not the cover's" \
    "[ \"\$(probe -select_streams v -show_entries stream_tags=title,language:stream_disposition=visual_impaired '$T/cover_out.mkv' | tr '\n' ' ')\" = '1|fra|Audio described ' ]"
check "video beside cover art: no note of several video streams" "! grep -q 'video streams' '$T/err'"

# Two real video streams (a camera's main picture and its proxy): the one
# FFmpeg's CLI takes, the most pixels, a default one first, with a note
# naming it (av_find_best_stream() took the small proxy, first here)
ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i testsrc2=size=320x240:rate=25 \
    -t 1 -map 0 -map 1 -c:v libx264 -disposition:v 0 "$T/two.mkv"
ffmpeg -v error -y -i "$T/two.mkv" -map 0 -c copy \
    -disposition:v:0 default -disposition:v:1 0 "$T/two_def.mkv"
wh() { ffprobe -v error -select_streams v -show_entries stream=width,height -of csv=p=0 "$1"; }
for f in two two_def; do
    ffmpeg -v error -y -i "$T/$f.mkv" -t 0.2 -c:v ffv1 "$T/${f}_ff.mkv"
    "$OMCTI" -y -i "$T/$f.mkv" -o "$T/${f}_out.mkv" 2>"$T/err"; rc=$?
    check "$f.mkv: the video stream FFmpeg's CLI converts ($(wh "$T/${f}_ff.mkv"))" \
        "[ $rc -eq 0 ] && [ \"\$(wh '$T/${f}_out.mkv')\" = \"\$(wh '$T/${f}_ff.mkv')\" ]"
done
check "(the two files make FFmpeg's CLI take each stream once)" \
    "[ \"\$(wh '$T/two_out.mkv')\" = 320,240 ] && [ \"\$(wh '$T/two_def_out.mkv')\" = 160,120 ]"
check "two video streams: one note naming the one converted" \
    "[ \"\$(grep -c 'note:' '$T/err')\" = 1 ] && grep -q \"'.*two_def.mkv' has 2 video streams; converting stream #0 (160x120)\$\" '$T/err'"
"$OMCTI" -q -y -i "$T/two.mkv" -o "$T/two_q.mkv" 2>"$T/err"
check "two video streams, -q: no note" "[ ! -s '$T/err' ]"

# A music file with only cover art is no video: one line saying so, exit 1
# (it said "audio only")
ffmpeg -v error -y -i "$T/plain.mp4" -i "$T/cover.jpg" -map 0:a -map 1 -c:a copy -c:v copy \
    -disposition:v:0 attached_pic "$T/song.m4a"
"$OMCTI" -y -i "$T/song.m4a" -o "$T/song.mkv" 2>"$T/err"
check "music with cover art only: refused in one line, exit 1, nothing written" \
    "[ $? -eq 1 ] && [ \$(wc -l < '$T/err') -eq 1 ] && grep -q 'no video stream (the file holds audio and its cover art only)$' '$T/err' && [ ! -e '$T/song.mkv' ]"

# An iPhone's place is an mdta key (com.apple.quicktime.location.ISO6709):
# kept in .mov and .mp4 as their 'location', in .mkv as the key itself
ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -c:v libx264 \
    -metadata com.apple.quicktime.location.ISO6709=+48.8584+002.2945+035.000/ \
    -metadata com.apple.quicktime.make=Apple -movflags use_metadata_tags "$T/iphone.mov"
"$OMCTI" -q -y -i "$T/iphone.mov" -o "$T/iphone_out.mov"
check "iPhone location kept in .mov" \
    "[ \"\$(probe -show_entries format_tags=location '$T/iphone_out.mov')\" = +48.8584+002.2945+035.000/ ]"
"$OMCTI" -q -y -i "$T/iphone.mov" -o "$T/iphone_out.mp4"
check "iPhone location kept in .mp4" \
    "probe -show_entries format_tags=location '$T/iphone_out.mp4' | grep -q '^+48.8584+002.2945+35'"

# A camera's timecode (a MOV tmcd track, 25 fps) is kept, its frames field
# at the output's rate (04 of 25 is 08 of 50: the same moment); slow
# motion keeps the input's rate, and the timecode as written
ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -c:v libx264 -timecode 01:02:03:04 \
    "$T/tc.mov"
tc() { probe -select_streams v -show_entries stream_tags=timecode "$1"; }
if [ "$(tc "$T/tc.mov")" = 01:02:03:04 ]; then
    "$OMCTI" -q -y -i "$T/tc.mov" -o "$T/tc_out.mov"
    check "timecode kept in .mov at the output's rate (01:02:03:08 at 50 fps)" \
        "[ \"\$(tc '$T/tc_out.mov')\" = 01:02:03:08 ] && probe -show_entries stream=codec_type '$T/tc_out.mov' | grep -q data"
    "$OMCTI" -q -y -i "$T/tc.mov" -o "$T/tc_out.mkv" --fps 60
    check "timecode kept in .mkv, --fps 60 (01:02:03:10)" "[ \"\$(tc '$T/tc_out.mkv')\" = 01:02:03:10 ]"
    "$OMCTI" -q -y -i "$T/tc.mov" -o "$T/tc_slow.mov" --slowmo 2
    check "timecode kept as written in slow motion" "[ \"\$(tc '$T/tc_slow.mov')\" = 01:02:03:04 ]"
    # above 255 fps the QuickTime muxer cannot write a tmcd track (it failed
    # in the trailer, after the whole run): converted without it, with a note
    "$OMCTI" -y -i "$T/tc.mov" -o "$T/tc_fast.mov" --fps 300 2>"$T/tc_err"; rc=$?
    check "timecode above 255 fps into .mov: converted, with a note, without it" \
        "[ $rc -eq 0 ] && grep -q 'timecode track counts at most 255 frames a second' '$T/tc_err' && [ -z \"\$(tc '$T/tc_fast.mov')\" ]"
else
    echo "note: this FFmpeg does not write a timecode track"
fi

# HDR10: the mastering display and light levels of an mp4 (its 'mdcv' and
# 'clli' boxes, added to the sample entry here) are kept, as FFmpeg's CLI
# keeps them
ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -c:v libx264 -pix_fmt yuv420p \
    -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc "$T/sdr.mp4"
python3 - "$T/sdr.mp4" "$T/hdr.mp4" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
path = []
def find(start, end, names):
    p = start
    while p < end:
        size, kind = struct.unpack(">I4s", d[p:p + 8])
        if kind == names[0]:
            path.append(p)
            if len(names) == 1:
                return p + size
            return find(p + {b"stsd": 16, b"avc1": 86}.get(kind, 8), p + size, names[1:])
        p += size
    sys.exit("no " + names[0].decode())
end = find(0, len(d), [b"moov", b"trak", b"mdia", b"minf", b"stbl", b"stsd", b"avc1"])
mdcv = struct.pack(">8HII", 13250, 34500, 7500, 3000, 34000, 16000, 15635, 16450, 10000000, 50)
add = struct.pack(">I4s", 8 + len(mdcv), b"mdcv") + mdcv + struct.pack(">I4sHH", 12, b"clli", 1000, 400)
d[end:end] = add   # moov after mdat: no chunk offset moves
for q in path:
    d[q:q + 4] = struct.pack(">I", struct.unpack(">I", d[q:q + 4])[0] + len(add))
open(sys.argv[2], "wb").write(d)
PY
has_hdr() {   # the mastering display's peak (1000 cd/m2) and MaxCLL (1000)
    probe -select_streams v -show_entries stream_side_data=max_content "$1" | grep -qx 1000 &&
        probe -select_streams v -show_entries stream_side_data=max_luminance "$1" | grep -Eqx '1000/1|10000000/10000'
}
if has_hdr "$T/hdr.mp4"; then
    for e in mp4 mkv; do
        "$OMCTI" -q -y -i "$T/hdr.mp4" -o "$T/hdr_out.$e"
        check "HDR10 mastering display and light levels kept in .$e" "has_hdr '$T/hdr_out.$e'"
    done
else
    echo "note: this FFmpeg does not read an mp4's mdcv box"
fi

# Chapters and subtitles (mov_text in mp4, subrip in mkv), with their times.
cat > "$T/meta.txt" <<'META'
;FFMETADATA1
title=Film
[CHAPTER]
TIMEBASE=1/1000
START=0
END=1000
title=One
[CHAPTER]
TIMEBASE=1/1000
START=1000
END=2000
title=Two
META
printf '1\n00:00:00,200 --> 00:00:00,900\nHello\n\n2\n00:00:01,100 --> 00:00:01,800\nWorld\n' > "$T/s.srt"
ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -i "$T/meta.txt" -i "$T/s.srt" -t 2 \
    -map 0:v -map 2:s -map_metadata 1 -map_chapters 1 -c:v libx264 -c:s mov_text "$T/film.mp4"
ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -i "$T/meta.txt" -i "$T/s.srt" -t 2 \
    -map 0:v -map 2:s -map_metadata 1 -map_chapters 1 -c:v libx264 -c:s srt "$T/film.mkv"
for f in film.mp4 film.mkv; do
    ext=${f##*.}
    "$OMCTI" -y -i "$T/$f" -o "$T/o.$ext" 2>"$T/err"
    check "$f converts" "[ $? -eq 0 ]"
    check "$f: chapters kept, at 0 and 1 s, with their titles" \
        "[ \"\$(probe -show_entries chapter=start_time:chapter_tags=title '$T/o.$ext' | tr '\n' ' ')\" = '0.000000|One 1.000000|Two ' ]"
    check "$f: subtitle stream kept" \
        "probe -select_streams s -show_entries stream=codec_type '$T/o.$ext' | grep -q subtitle"
    ffmpeg -nostdin -v error -y -i "$T/o.$ext" -map 0:s:0 -f srt "$T/o.srt"
    check "$f: subtitle cues at their times" \
        "grep -q '00:00:00,200 --> 00:00:00,900' '$T/o.srt' && grep -q '00:00:01,100 --> 00:00:01,800' '$T/o.srt' && grep -q World '$T/o.srt'"
    check "$f: container title kept" "[ \"\$(probe -show_entries format_tags=title '$T/o.$ext')\" = Film ]"
done
"$OMCTI" -y -i "$T/film.mkv" -o "$T/sub.mp4" 2>"$T/err"
check "subrip into mp4: exit 0, one notice naming the dropped subtitle stream" \
    "[ $? -eq 0 ] && [ \$(grep -c 'cannot hold subrip subtitle; subtitle stream 1 dropped' '$T/err') -eq 1 ]"
"$OMCTI" -y -i "$T/film.mkv" -o "$T/slow.mkv" --slowmo 2 2>"$T/err"
check "slow motion: chapters and subtitles left out, with a notice" \
    "grep -q 'chapters are not kept in slow motion' '$T/err' && [ -z \"\$(probe -select_streams s -show_entries stream=index '$T/slow.mkv')\" ]"
check "slow motion: the title is kept" "[ \"\$(probe -show_entries format_tags=title '$T/slow.mkv')\" = Film ]"
mkfifo "$T/fifo.mkv"
cat "$T/film.mkv" > "$T/fifo.mkv" &
"$OMCTI" -y -i "$T/fifo.mkv" -o "$T/pipe.mkv" 2>"$T/err"
check "from a FIFO (no second demuxer): still converts" "[ $? -eq 0 ] && [ -s '$T/pipe.mkv' ]"
wait

# A whole run in parts (--workers) and pieces joined with --audio-from:
# the join copies them from the input, as a single run does.
"$OMCTI" -q -y -i "$T/film.mkv" -o "$T/w.mkv" --workers 2
check "--workers: chapters, subtitles and title kept" \
    "[ \"\$(probe -show_entries chapter=start_time:chapter_tags=title '$T/w.mkv' | tr '\n' ' ')\" = '0.000000|One 1.000000|Two ' ] && probe -select_streams s -show_entries stream=codec_type '$T/w.mkv' | grep -q subtitle && [ \"\$(probe -show_entries format_tags=title '$T/w.mkv')\" = Film ]"
"$OMCTI" -q -y -i "$T/phone.mp4" -o "$T/p0.mp4" --segment 0/2 && "$OMCTI" -q -y -i "$T/phone.mp4" -o "$T/p1.mp4" --segment 1/2 &&
    "$OMCTI" join -q -y -o "$T/j.mp4" --audio-from "$T/phone.mp4" "$T/p0.mp4" "$T/p1.mp4"
check "segments joined with --audio-from: rotation and audio kept" \
    "[ \"\$(probe -select_streams v -show_entries stream_side_data=rotation '$T/j.mp4' | head -1)\" = 90 ] && [ \"\$(probe -select_streams a -show_entries stream=codec_name '$T/j.mp4')\" = aac ]"

# --audio-from an input with nothing to copy (no audio, no subtitles: it is
# read for its metadata, at the header): the join closes it after the
# header, as the writer does (it kept it open, with the pictures its probe
# had read, to the end). Seen while the join waits on a FIFO it writes.
ffmpeg -v error -y -i "$T/plain.mp4" -map 0:v -c copy "$T/mute.mp4"
for i in 0 1; do "$OMCTI" -q -y -i "$T/mute.mp4" -o "$T/mp$i.mkv" --segment $i/2 --lossless; done
if [ -d /proc/self/fd ] && mkfifo "$T/jf.mkv"; then
    exec 3<>"$T/jf.mkv"   # a reader that never blocks the join's open
    "$OMCTI" join -q -y -o "$T/jf.mkv" --audio-from "$T/mute.mp4" "$T/mp0.mkv" "$T/mp1.mkv" 3>&- &
    jpid=$!
    timeout 60 head -c 300000 <&3 >/dev/null   # past the header, the pipe full again
    sleep 0.2
    fds=$(ls -l /proc/$jpid/fd 2>/dev/null)
    exec 4<"$T/jf.mkv"   # the rest drained, by a reader open before ours closes
    timeout 60 cat <&4 >/dev/null 3>&- & cpid=$!   # (holding no writer: its EOF comes)
    exec 3>&- 4<&-
    wait $jpid; jrc=$?
    wait $cpid
    check "join --audio-from a video-only input: that input closed after the header" \
        "[ $jrc -eq 0 ] && grep -q 'jf.mkv' <<<\"\$fds\" && ! grep -q 'mute.mp4' <<<\"\$fds\""
fi

# A recording cut inside a GOP (MPEG-TS, H.264 with B-pictures, cut at a
# P-picture whose B-pictures come next and show earlier): the video starts
# at the smallest timestamp, before the stream's start_time. The audio keeps
# its place against the pictures in a plain run, --workers and joined
# pieces: the first audio packet after the start lies where it lay (it was
# the 80 ms between the two off).
ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i sine=f=440 -t 6 \
    -c:v libx264 -pix_fmt yuv420p -g 50 -bf 2 -c:a aac -f mpegts "$T/rec.ts"
python3 - "$T/rec.ts" "$T/cut.ts" <<'PY'
import json, subprocess, sys
d = open(sys.argv[1], "rb").read()
pk = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                "packet=pos,pts,flags", "-of", "json", sys.argv[1]], capture_output=True, text=True).stdout)["packets"]
k = next(i for i in range(20, len(pk) - 2)
         if "K" not in pk[i]["flags"] and int(pk[i + 1]["pts"]) < int(pk[i]["pts"]))
open(sys.argv[2], "wb").write(d[int(pk[k]["pos"]) // 188 * 188:])
PY
# av_error IN OUT [early]: the audio packet after the video's start (its
# smallest timestamp, or decode time where packets have none), in OUT (+ that
# start) and in IN: how many ms apart; early: IN's video starts 20 ms or more
# before its stream's start_time, else it says so (the check can fail)
av_error() {
    python3 - "$@" <<'PY'
import json, subprocess, sys
def times(f, s):
    j = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", s, "-show_entries",
                   "packet=pts_time,dts_time", "-of", "json", f], capture_output=True, text=True).stdout)
    t = [p.get("pts_time", p.get("dts_time")) for p in j["packets"]]
    return [float(x) for x in t if x not in (None, "N/A")]
o = min(times(sys.argv[1], "v"))
if len(sys.argv) > 3:
    st = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                         "stream=start_time", "-of", "csv=p=0", sys.argv[1]], capture_output=True,
                        text=True).stdout.split()
    if not st or float(st[0]) - o < 0.02:
        print("(the cut file does not start before its start_time)"); sys.exit()
want = min(t for t in times(sys.argv[1], "a") if t > o + 0.0005)
print(round(abs(times(sys.argv[2], "a")[1] + o - want) * 1000))
PY
}
"$OMCTI" -q -y -i "$T/cut.ts" -o "$T/cut1.mkv" 2>/dev/null
e=$(av_error "$T/cut.ts" "$T/cut1.mkv" early)
check "a recording cut inside a GOP: the audio in sync (${e} ms)" "[ '$e' -le 2 ] 2>/dev/null"
"$OMCTI" -q -y -i "$T/cut.ts" -o "$T/cut2.mkv" --workers 2 2>/dev/null
e=$(av_error "$T/cut.ts" "$T/cut2.mkv" early)
check "a recording cut inside a GOP, --workers 2: the audio in sync (${e} ms)" "[ '$e' -le 2 ] 2>/dev/null"
for i in 0 1 2; do "$OMCTI" -q -y -i "$T/cut.ts" -o "$T/cp$i.mkv" --segment $i/3 2>/dev/null; done
"$OMCTI" join -q -y -o "$T/cut3.mkv" --audio-from "$T/cut.ts" "$T"/cp{0,1,2}.mkv
e=$(av_error "$T/cut.ts" "$T/cut3.mkv" early)
check "a recording cut inside a GOP, 3 pieces joined: the audio in sync (${e} ms)" "[ '$e' -le 2 ] 2>/dev/null"
# AVI with B-pictures: packets carry no presentation time, and the first
# picture's guessed one is its decode time plus the reorder delay (80 ms):
# it places the pictures, not the audio (which went 80 ms early so)
ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25 -f lavfi -i sine=f=440 -t 4 \
    -c:v libx264 -pix_fmt yuv420p -bf 2 -c:a pcm_s16le "$T/bf.avi"
"$OMCTI" -q -y -i "$T/bf.avi" -o "$T/bf.mkv" 2>/dev/null
e=$(av_error "$T/bf.avi" "$T/bf.mkv")
check "AVI with B-pictures: the audio in sync (${e} ms)" "[ '$e' -le 2 ] 2>/dev/null"

finish realfiles-meta
