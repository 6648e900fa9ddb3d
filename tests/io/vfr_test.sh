#!/usr/bin/env bash
# Variable frame rate (issue 13 item 5, issue 15 item 2): output frames are
# placed by the input's timestamps in every container, so the duration is
# the real one and the audio stays in sync at every point.
# usage: vfr_test.sh OMCTI Y4MTOOL
set -u
OMCTI=$1 Y4M=$2
. "$(dirname "$0")/lib.sh"
need_ffmpeg
work_dir vfr
near() { python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > float(sys.argv[3]))' "$@"; }

# 2 s at 24 fps then 2 s at 30 fps (108 pictures), with a 4 s tone, stored
# losslessly: input picture k is at k/24 s (k < 48), then 2 + (k - 48)/30 s.
# The two parts are different test pictures, so the switch is a scene cut
# and the output frames just before it hold picture 47.
ffmpeg -v error -y -f lavfi -i "testsrc2=size=128x96:rate=24:duration=2" \
    -f lavfi -i "testsrc=size=128x96:rate=30:duration=2" -f lavfi -i "sine=f=440:duration=4" \
    -filter_complex "[0:v][1:v]concat=n=2:v=1:a=0[v]" -map "[v]" -map 2:a -fps_mode vfr \
    -c:v libx264 -qp 0 -pix_fmt yuv420p -c:a aac "$T/vfr.mp4" ||
    { echo "cannot make the VFR clip (libx264?)"; exit 77; }
ffmpeg -v error -y -i "$T/vfr.mp4" -c copy "$T/vfr.mkv"
ffmpeg -v error -y -i "$T/vfr.mp4" -fps_mode passthrough -f yuv4mpegpipe "$T/in.y4m"

for ext in mp4 mkv; do
    # The rule (docs/cli.md): a VFR input's rate is its average rounded up to
    # a common rate, here 30; 2x gives 60 fps. Output frame j is at j/60 s.
    "$OMCTI" -y -i "$T/vfr.$ext" -o "$T/o.y4m" --engine cpu 2>"$T/err"; rc=$?
    [ $rc -eq 0 ] && ok || { bad "$ext: exit $rc: $(cat "$T/err")"; continue; }
    grep -q "variable frame rate" "$T/err" && ok || bad "$ext: no VFR note: $(cat "$T/err")"
    read -r w h fn fd n < <("$Y4M" info "$T/o.y4m")
    [ "$fn/$fd" = 60/1 ] && ok || bad "$ext: output rate $fn/$fd, wanted 60/1"
    # 4 s: 240 frames (the last picture held for its 1/30 s)
    [ "$n" -ge 239 ] && [ "$n" -le 241 ] && ok || bad "$ext: $n output frames, wanted 240"
    # originals where an output time meets an input time, in both parts
    for pair in 0:0 12:30 24:60 47:118 48:120 57:138 63:150 78:180 93:210; do
        k=${pair%%:*} j=${pair##*:}
        "$Y4M" same "$T/in.y4m" "$k" "$T/o.y4m" "$j" && ok ||
            bad "$ext: input picture $k is not output frame $j (misplaced in time)"
    done
    # encoded with audio: video and audio last 4 s, the frames are 1/60 s apart
    "$OMCTI" -q -y -i "$T/vfr.$ext" -o "$T/o.$ext" 2>"$T/err" || bad "$ext: encoded run failed"
    vtimes() { ffprobe -v error -select_streams v -show_entries frame=pts_time -of csv=p=0 "$1" |
               awk -F, '$1 != "" {print $1}'; }
    vd=$(vtimes "$T/o.$ext" | tail -1)
    ad=$(ffprobe -v error -select_streams a -show_entries packet=pts_time,duration_time -of csv=p=0 "$T/o.$ext" |
         tail -1 | awk -F, '{print $1 + $2}')
    near "$vd" 3.983 0.02 && ok || bad "$ext: last video frame at $vd s, wanted 3.983"
    near "$ad" 4.0 0.05 && ok || bad "$ext: audio ends at $ad s, wanted 4.0"
    t120=$(vtimes "$T/o.$ext" | sed -n 121p)
    near "$t120" 2.0 0.001 && ok || bad "$ext: output frame 120 (input picture 48, t = 2 s) at $t120 s"
    # splitting a VFR input is refused (segments go by frame numbers)
    "$OMCTI" -q -y -i "$T/vfr.$ext" -o "$T/w.$ext" --workers 2 2>"$T/err"; rc=$?
    [ $rc -eq 1 ] && grep -q "variable frame rate" "$T/err" && [ ! -e "$T/w.$ext" ] && ok ||
        bad "$ext --workers 2: exit $rc: $(cat "$T/err")"
done

# A 30 fps phone-like clip whose timestamps jitter and run 0.9% fast (the
# average 30.23 fps, FFmpeg's r_frame_rate 900000/29773): 30 fps, 60 at 2x
# (rounded up to the next common rate it became 48, and 96 fps out).
ffmpeg -v error -y -f lavfi -i "testsrc2=size=128x96:rate=30:duration=3" \
    -vf "settb=1/90000,setpts='(N/30-N*0.0003+0.002*mod(N,3))/TB'" -fps_mode passthrough \
    -enc_time_base:v 1/90000 -video_track_timescale 90000 -c:v libx264 -qp 0 "$T/jit.mp4" &&
    ffmpeg -v error -y -i "$T/jit.mp4" -c copy "$T/jit.mkv" || bad "cannot make the jittery clip"
for ext in mp4 mkv; do
    "$OMCTI" -y -i "$T/jit.$ext" -o "$T/j.y4m" --engine cpu 2>"$T/err" || bad "jittery $ext: $(cat "$T/err")"
    read -r w h fn fd n < <("$Y4M" info "$T/j.y4m")
    [ "$fn/$fd" = 60/1 ] && [ "$n" -ge 178 ] && [ "$n" -le 180 ] && ok ||
        bad "jittery $ext: $n frames at $fn/$fd fps, wanted about 179 at 60/1"
done

# A Matroska file whose header says 25 fps while its pictures, from the
# second half on, are 60 ms apart: 5 s, not 4.
ffmpeg -v error -y -f lavfi -i "testsrc2=size=128x96:rate=25:duration=4" -f lavfi -i "sine=f=440:duration=5" \
    -vf "setpts='if(gte(N,50),(50+(N-50)*1.5)/(25*TB),N/(25*TB))'" -fps_mode vfr -c:v ffv1 \
    -c:a flac -shortest "$T/h25.mkv"
"$OMCTI" -y -i "$T/h25.mkv" -o "$T/h.mkv" 2>"$T/err"; rc=$?
d=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$T/h.mkv")
[ $rc -eq 0 ] && near "$d" 5.0 0.05 && ok || bad "header 25 fps, 5 s of pictures: exit $rc, $d s: $(cat "$T/err")"
grep -q "damaged\|truncated" "$T/err" && bad "VFR called damaged: $(cat "$T/err")" || ok

# A timestamp jump (TIMED_JUMP_SECONDS, src/cli/timeline.h): one damaged
# timestamp 5 hours ahead in 6 pictures asked for 900 000 held frames; the
# gap is closed to one frame, with a warning, and --workers agrees. A
# recording resumed 60 s later (every picture from the 24th on): the same
# in the whole run, --workers 3 and 3 joined pieces. A pause below the
# limit keeps its time (the 1.5x stretch above).
ffmpeg -v error -y -f lavfi -i testsrc=size=64x48:rate=25:duration=0.24 -c:v libx264 -bf 0 -g 3 \
    -pix_fmt yuv420p -bsf:v "setts=ts=if(eq(N\,3)\,PTS+1000*3600*5\,PTS)" "$T/jump5h.mkv"
( ulimit -f 40000; timeout 60 "$OMCTI" -y -i "$T/jump5h.mkv" -o "$T/j1.y4m" ) 2>"$T/err"; rc=$?
n=$(grep -a -o FRAME "$T/j1.y4m" | wc -l)
[ $rc -eq 0 ] && [ "$n" = 12 ] && grep -q "timestamps jump 18000 s ahead after picture 2" "$T/err" && ok ||
    bad "one timestamp 5 h ahead: exit $rc, $n frames: $(cat "$T/err")"
( ulimit -f 40000; timeout 60 "$OMCTI" -q -y -i "$T/jump5h.mkv" -o "$T/j2.y4m" --workers 2 ) &&
    cmp -s "$T/j1.y4m" "$T/j2.y4m" && ok || bad "one timestamp 5 h ahead: --workers 2 differs"
ffmpeg -v error -y -f lavfi -i testsrc=size=64x48:rate=25:duration=2 -c:v libx264 -bf 0 -g 10 \
    -pix_fmt yuv420p -bsf:v "setts=ts=if(gte(N\,23)\,PTS+1000*60\,PTS)" "$T/jump60.mkv"
"$OMCTI" -q -y -i "$T/jump60.mkv" -o "$T/j1.y4m" && [ "$(grep -a -o FRAME "$T/j1.y4m" | wc -l)" = 100 ] &&
    ok || bad "resumed 60 s later: not 100 frames"
"$OMCTI" -q -y -i "$T/jump60.mkv" -o "$T/j2.y4m" --workers 3 2>"$T/err" && cmp -s "$T/j1.y4m" "$T/j2.y4m" &&
    ok || bad "resumed 60 s later: --workers 3 differs"
# the workers' jump is reported as the whole run reports it, once
[ "$(grep -c 'timestamps jump 60 s ahead after picture 22 (' "$T/err")" = 1 ] && [ "$(grep -c 'timestamps jump' "$T/err")" = 1 ] &&
    ok || bad "resumed 60 s later: --workers 3 does not warn once: $(cat "$T/err")"
for i in 0 1 2; do "$OMCTI" -q -y -i "$T/jump60.mkv" -o "$T/jp$i.y4m" --segment $i/3 2>/dev/null; done
"$OMCTI" join -q -y -o "$T/j3.y4m" "$T"/jp{0,1,2}.y4m && cmp -s "$T/j1.y4m" "$T/j3.y4m" &&
    ok || bad "resumed 60 s later: 3 joined pieces differ"

# A Matroska file that states no rate, whose 7 pictures share one timestamp:
# the rate is measured from the packets, and the reader read on from a seek
# back to the lowest timestamp, which lands on the last of the packets that
# share it: 3 of 7 pictures read (1 of 10, "only one video frame", where the
# packets lie in clusters of their own; pictures lost unsaid where the
# timestamps go back). The demuxer is opened again; --workers agrees.
ffmpeg -v error -y -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2" -f lavfi -i "testsrc2=s=64x48:r=10:d=0.2" \
    -filter_complex "[0][1]concat=n=2:v=1,setpts=0" -fps_mode passthrough -c:v ffv1 -g 1 "$T/eq.mkv"
"$OMCTI" -y -i "$T/eq.mkv" -o "$T/e1.y4m" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -q "^omcti: 7 frames in" "$T/err" && ok ||
    bad "7 pictures at one timestamp, no rate stated: exit $rc: $(cat "$T/err")"
"$OMCTI" -q -y -i "$T/eq.mkv" -o "$T/e2.y4m" --workers 2 && cmp -s "$T/e1.y4m" "$T/e2.y4m" && ok ||
    bad "7 pictures at one timestamp: --workers 2 differs"

# constant-rate inputs: frame numbers and timestamps give the same output
"$Y4M" gen 96 64 20 > "$T/c.y4m"
ffmpeg -v error -y -i "$T/c.y4m" -c:v ffv1 "$T/c.mkv"
"$OMCTI" -q -y -i "$T/c.y4m" -o "$T/c1.y4m" --fps 60 && "$OMCTI" -q -y -i "$T/c.mkv" -o "$T/c2.y4m" --fps 60 &&
    cmp -s <(tail -n +2 "$T/c1.y4m") <(tail -n +2 "$T/c2.y4m") && ok || bad "CFR mkv and y4m differ"

finish vfr_test
