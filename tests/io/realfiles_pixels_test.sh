#!/usr/bin/env bash
# Pictures as people have them (issue 15 items 4, 5, 8): odd sizes stay
# H.264 in .mp4 (padded or cropped to even, or refused, by --odd-size), 10-bit
# and 4:2:2 inputs are written as the 8-bit 4:2:0 they were processed in,
# HDR tags follow the rule of docs/cli.md, and the x264 default is CRF 23.
# usage: realfiles_pixels_test.sh OMCTI
set -u
OMCTI=$1
. "$(dirname "$0")/lib.sh"
need_ffmpeg
work_dir pixels
probe() { ffprobe -v error -select_streams v:0 -show_entries "stream=$2" -of csv=p=0 "$1"; }

# --- odd size (item 4) ---
ffmpeg -v error -y -f lavfi -i "testsrc=size=853x481:rate=25:duration=0.4" -pix_fmt yuv420p \
    -c:v ffv1 "$T/odd.mkv" || { echo "cannot make the clip"; exit 77; }
ffmpeg -v error -y -f lavfi -i nullsrc=s=16x16:d=0.1 -c:v libx264 -f null - 2>/dev/null ||
    { echo "no libx264"; exit 77; }

"$OMCTI" -y -i "$T/odd.mkv" -o "$T/pad.mp4" --lossless 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && ok || bad "pad: exit $rc: $(cat "$T/err")"
[ "$(probe "$T/pad.mp4" codec_name,width,height,pix_fmt)" = "h264,854,482,yuv420p" ] && ok ||
    bad "pad: $(probe "$T/pad.mp4" codec_name,width,height,pix_fmt), wanted h264,854,482,yuv420p"
[ "$(grep -c "853x481 is padded to 854x482" "$T/err")" = 1 ] && grep -q -- "--odd-size crop" "$T/err" &&
    ok || bad "pad: not one notice naming the size and --odd-size: $(cat "$T/err")"
# the padding repeats the last column and row (x264 qp 0: exact)
ffmpeg -v error -y -i "$T/pad.mp4" -frames:v 1 -f rawvideo -pix_fmt yuv420p "$T/pad.yuv"
ffmpeg -v error -y -i "$T/odd.mkv" -frames:v 1 -f rawvideo -pix_fmt yuv420p "$T/odd.yuv"
python3 - "$T/pad.yuv" "$T/odd.yuv" <<'PY' && ok || bad "pad: the picture is not the input with its last column and row repeated"
import sys
p = open(sys.argv[1], 'rb').read(); o = open(sys.argv[2], 'rb').read()
W, H, w, h = 854, 482, 853, 481
for y in range(H):
    row = p[y * W:(y + 1) * W]
    src = o[min(y, h - 1) * w:(min(y, h - 1) + 1) * w]
    assert row == src + src[-1:], y
PY

"$OMCTI" -y -i "$T/odd.mkv" -o "$T/crop.mov" --odd-size crop 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && [ "$(probe "$T/crop.mov" codec_name,width,height)" = "h264,852,480" ] &&
    grep -q "853x481 is cropped to 852x480" "$T/err" && ok ||
    bad "crop: exit $rc, $(probe "$T/crop.mov" codec_name,width,height): $(cat "$T/err")"

"$OMCTI" -y -i "$T/odd.mkv" -o "$T/fail.mp4" --odd-size fail 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && [ ! -e "$T/fail.mp4" ] && [ "$(wc -l < "$T/err")" = 1 ] && ok ||
    bad "fail: exit $rc, wanted 1 and one line: $(cat "$T/err")"
# the advice names options that exist: each one it names is accepted
for o in $(grep -o -- "--odd-size [a-z]*" "$T/err" | sed 's/ /=/'); do
    "$OMCTI" -q -y -i "$T/odd.mkv" -o "$T/advice.mp4" "$o" && ok || bad "the error's advice '$o' fails"
done
grep -q -- "--odd-size pad" "$T/err" && ok || bad "fail: no --odd-size advice: $(cat "$T/err")"
# a picture one pixel wide cannot be cropped: the advice names only pad
ffmpeg -v error -y -f lavfi -i "testsrc=size=1x9:rate=25:duration=0.2" -pix_fmt yuv420p -c:v ffv1 "$T/thin.mkv"
"$OMCTI" -q -y -i "$T/thin.mkv" -o "$T/thin.mp4" --odd-size crop 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q -- "--odd-size pad makes" "$T/err" && ! grep -q -- "--odd-size crop" "$T/err" && ok ||
    bad "1x9 --odd-size crop: exit $rc: $(cat "$T/err")"
"$OMCTI" -q -y -i "$T/thin.mkv" -o "$T/thin.mp4" && [ "$(probe "$T/thin.mp4" width,height)" = "2,10" ] && ok ||
    bad "1x9 padded: $(probe "$T/thin.mp4" width,height)"
"$OMCTI" -q -i "$T/odd.mkv" -o "$T/x.mp4" --odd-size trim 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "not pad, crop or fail" "$T/err" && ok || bad "--odd-size trim: exit $rc: $(cat "$T/err")"

# y4m and FFV1 hold odd sizes: kept
"$OMCTI" -q -y -i "$T/odd.mkv" -o "$T/odd.y4m" && head -c 40 "$T/odd.y4m" | grep -q "W853 H481" && ok ||
    bad "y4m: $(head -c 40 "$T/odd.y4m" | head -1)"
"$OMCTI" -q -y -i "$T/odd.mkv" -o "$T/ffv1.mkv" --lossless &&
    [ "$(probe "$T/ffv1.mkv" codec_name,width,height)" = "ffv1,853,481" ] && ok ||
    bad "ffv1: $(probe "$T/ffv1.mkv" codec_name,width,height)"
# workers: every part padded alike, joined
"$OMCTI" -y -i "$T/odd.mkv" -o "$T/workers.mp4" --workers 2 2>"$T/err" &&
    [ "$(probe "$T/workers.mp4" codec_name,width,height)" = "h264,854,482" ] && ok ||
    bad "workers: $(probe "$T/workers.mp4" codec_name,width,height)"
[ "$(grep -c "853x481 is padded to 854x482" "$T/err")" = 1 ] && ok || bad "workers: not one notice: $(cat "$T/err")"
[ "$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$T/workers.mp4")" = 20 ] &&
    ok || bad "workers: not 20 frames"
# a piece's checksum file names the choice (farm redoes pieces made otherwise)
"$OMCTI" -q -y -i "$T/odd.mkv" -o "$T/piece.mp4" --segment 0/2 --odd-size crop &&
    [ "$(probe "$T/piece.mp4" width,height)" = "852,480" ] && grep -q "odd-size=crop" "$T/piece.mp4.sum" &&
    ok || bad "--segment --odd-size crop: $(probe "$T/piece.mp4" width,height), $(grep key "$T/piece.mp4.sum")"

# --- 10-bit 4:2:2 and HDR (item 5) ---
ffmpeg -v error -y -f lavfi -i "testsrc=size=320x240:rate=25:duration=0.4" -pix_fmt yuv422p10le \
    -c:v libx264 "$T/in10.mp4" || { echo "no 10-bit libx264"; exit 77; }
"$OMCTI" -y -i "$T/in10.mp4" -o "$T/out10.mp4" 2>"$T/err"; rc=$?
got=$(probe "$T/out10.mp4" pix_fmt,profile)
[ $rc -eq 0 ] && [ "$got" = "High,yuv420p" ] && ok || bad "10-bit 4:2:2: exit $rc, $got, wanted High (not High 4:2:2 or High 10), yuv420p"
grep -q "yuv422p10le input is processed as 8-bit 4:2:0 and written so" "$T/err" && ok || bad "10-bit: no notice: $(cat "$T/err")"
grep -q "HDR" "$T/err" && bad "10-bit SDR: an HDR notice: $(cat "$T/err")" || ok

# PQ: the requantised values keep their transfer, so the tags are kept
ffmpeg -v error -y -f lavfi -i "testsrc=size=320x240:rate=25:duration=0.4" -pix_fmt yuv420p10le \
    -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -c:v libx264 "$T/pq.mp4"
"$OMCTI" -y -i "$T/pq.mp4" -o "$T/pq_out.mkv" 2>"$T/err"; rc=$?
got=$(probe "$T/pq_out.mkv" pix_fmt,color_transfer,color_primaries,color_space)
[ $rc -eq 0 ] && [ "$got" = "yuv420p,bt2020nc,smpte2084,bt2020" ] && ok ||
    bad "PQ: exit $rc, $got, wanted yuv420p,bt2020nc,smpte2084,bt2020"
grep -q "is HDR (PQ)" "$T/err" && ok || bad "PQ: no HDR notice: $(cat "$T/err")"
"$OMCTI" -q -y -i "$T/pq.mp4" -o "$T/pq_q.mkv" 2>"$T/err" && [ ! -s "$T/err" ] && ok || bad "-q PQ: $(cat "$T/err")"

# --- the CRF default (item 8): x264's own, 23, as x264 writes in its SEI ---
crf() { grep -a -o "crf=[0-9.]*" "$1" | head -1; }
"$OMCTI" -q -y -i "$T/in10.mp4" -o "$T/default.mp4" && [ "$(crf "$T/default.mp4")" = "crf=23.0" ] && ok ||
    bad "default CRF: $(crf "$T/default.mp4")"
"$OMCTI" -q -y -i "$T/in10.mp4" -o "$T/crf16.mp4" --crf 16 && [ "$(crf "$T/crf16.mp4")" = "crf=16.0" ] &&
    [ "$(stat -c %s "$T/crf16.mp4")" -gt "$(stat -c %s "$T/default.mp4")" ] && ok ||
    bad "--crf 16: $(crf "$T/crf16.mp4"), not larger than the default"
"$OMCTI" --help | grep -q "default 23" && ok || bad "--help does not state the CRF default"

finish
