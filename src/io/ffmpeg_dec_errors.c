/* Why the video stream's decoder is missing or will not open, in words a
 * user can act on: which stream, which codec, what FFmpeg lacks. Kept out
 * of ffmpeg_probe.c, which opens the stream; this only words its refusals
 * (a bare "cannot open the decoder: Invalid argument" named neither the
 * stream nor the codec). */
#include <stdio.h>
#include <string.h>

#include "src/common.h"
#include "src/io/ffmpeg_internal.h"

/* " (fourcc 'XXXX')", the stream's codec tag where it is printable text,
 * else "" (a Matroska CodecID FFmpeg does not know has none). */
static const char *fourcc(const AVCodecParameters *par, char *buf, size_t len)
{
    char t[5];
    buf[0] = '\0';
    if (!par->codec_tag)
        return buf;
    for (int i = 0; i < 4; i++) {
        const unsigned c = (par->codec_tag >> (8 * i)) & 0xff;
        if (c < 0x20 || c > 0x7e)
            return buf;
        t[i] = (char)c;
    }
    t[4] = '\0';
    snprintf(buf, len, " (fourcc '%s')", t);
    return buf;
}

int ffio_no_decoder(const AVFormatContext *fmt, int stream, const char *path, char *err,
                    size_t errlen)
{
    const AVCodecParameters *par = fmt->streams[stream]->codecpar;
    char tag[32];
    fourcc(par, tag, sizeof tag);
    if (par->codec_id == AV_CODEC_ID_NONE)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': no decoder for the video codec "
                         "of stream #%d%s: the file names a codec FFmpeg does not know", path,
                         stream, tag);
    return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': no decoder for the video codec "
                     "'%s' of stream #%d%s: this FFmpeg has none", path,
                     avcodec_get_name(par->codec_id), stream, tag);
}

int ffio_decoder_refuses(const AVFormatContext *fmt, int stream, const AVCodec *codec, int ret,
                         const char *path, char *err, size_t errlen)
{
    const AVCodecParameters *par = fmt->streams[stream]->codecpar;
    char eb[AV_ERROR_MAX_STRING_SIZE], tag[32];
    if (ret == AVERROR(ENOMEM))
        return set_error(err, errlen, OMCTI_ERR_NOMEM, "'%s': out of memory", path);
    /* Uncompressed pictures (Matroska's V_UNCOMPRESSED, AVI's and MOV's raw
     * tracks) are laid out as their fourcc says; one FFmpeg has no pixel
     * format for leaves the rawvideo decoder nothing to read them by. */
    if (par->codec_id == AV_CODEC_ID_RAWVIDEO && par->format == AV_PIX_FMT_NONE)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': stream #%d is uncompressed "
                         "video in a pixel layout FFmpeg does not know%s", path, stream,
                         fourcc(par, tag, sizeof tag));
    /* A decoder that refuses the stream's setup data (extradata: Theora's
     * three headers, H.264's parameter sets) says so with invalid data or
     * a code of its choosing (Theora's corrupt headers: -1, EPERM,
     * "Operation not permitted"), which alone tells the user nothing.
     * Other failures (an experimental decoder, a feature not implemented)
     * keep FFmpeg's words. */
    if (ret == AVERROR(EPERM) || ret == AVERROR_INVALIDDATA)
        return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the %s decoder refuses the "
                         "stream's setup data (%s): a damaged file?", path, codec->name,
                         ffio_errstr(ret, eb, sizeof eb));
    return set_error(err, errlen, OMCTI_ERR_FORMAT, "'%s': the %s decoder cannot open video "
                     "stream #%d: %s", path, codec->name, stream, ffio_errstr(ret, eb, sizeof eb));
}
