#include "VideoBridge.h"
#include "libav_functions.h"
#include "tone_map.h"
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

/// The demuxers FFmpeg may use: QuickTime/MP4, Matroska/WebM and AVI, nothing that opens other files.
static const char allowed_demuxers[] = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi";
enum { io_buffer_size = 32768 };

struct mvid_video {
    int fd;
    int64_t size;
    int64_t position;
    int64_t deadline_ns;
    AVFormatContext *format;
    AVIOContext *io;
    AVCodecContext *codec;
    int stream_index;
    uint8_t *rgb;
    int rgb_width;
    mb_message message;
};

static int64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int past_deadline(mvid_video *video) {
    if (monotonic_ns() <= video->deadline_ns) return 0;
    mb_message_set(&video->message, "video took longer than its time limit to read");
    return 1;
}

// ---- Messages: FFmpeg's log goes to the video the calling thread is working on.

static __thread mvid_video *video_being_read;

static void capture_log(void *context, int level, const char *format, va_list arguments) {
    (void)context;
    if (level > AV_LOG_ERROR || video_being_read == NULL) return;
    char line[256];
    vsnprintf(line, sizeof line, format, arguments);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r' || line[length - 1] == ' ')) line[--length] = 0;
    for (char *c = line; *c; c++) if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    if (length > 0) mb_message_set(&video_being_read->message, "%s", line);
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static void install_log_callback(void) {
    av_log_set_level(AV_LOG_ERROR);
    av_log_set_callback(capture_log);
}

const char *mvid_library_failure(void) {
    if (libav_library_load() == MB_OK) return NULL;
    return libavformat_library.failure.text;
}

static char version_text[96];
static void name_version(void) {
    unsigned version = avformat_version();
    snprintf(version_text, sizeof version_text, "libavformat %u.%u.%u (FFmpeg %s)",
             version >> 16, (version >> 8) & 0xFF, version & 0xFF, av_version_info());
}

const char *mvid_version(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (libav_library_load() != MB_OK) return "not loaded";
    pthread_once(&once, name_version);
    return version_text;
}

// ---- Input: Masonry's descriptor, read with pread; no other file is ever opened.

static int read_packet(void *opaque, uint8_t *buffer, int size) {
    mvid_video *video = opaque;
    if (past_deadline(video)) return AVERROR_EXIT;
    if (video->position >= video->size) return AVERROR_EOF;
    int64_t left = video->size - video->position;
    size_t count = (size_t)(left < size ? left : size);
    ssize_t got = mb_pread_full(video->fd, buffer, count, video->position);
    if (got < 0) {
        video->message.error_number = errno;
        mb_message_set(&video->message, "read failed: %s", strerror(errno));
        return AVERROR(EIO);
    }
    if (got == 0) return AVERROR_EOF;
    video->position += got;
    return (int)got;
}

static int64_t seek_packet(void *opaque, int64_t offset, int whence) {
    mvid_video *video = opaque;
    int64_t position;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return video->size;
    case SEEK_SET: position = offset; break;
    case SEEK_CUR: position = video->position + offset; break;
    case SEEK_END: position = video->size + offset; break;
    default: return AVERROR(EINVAL);
    }
    if (position < 0) return AVERROR(EINVAL);
    video->position = position;
    return position;
}

static int interrupt(void *opaque) { return past_deadline(opaque); }

/// How a demuxer would open another file or URL (HLS segments, concat entries, QuickTime data
/// references): refused, always.
static int refuse_io_open(AVFormatContext *format, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)pb; (void)flags; (void)options;
    mvid_video *video = format->opaque;
    if (video != NULL) mb_message_set(&video->message, "the container refers to another file, which is not opened");
    (void)url;
    return AVERROR(EPERM);
}

mvid_video *mvid_create(int fd, int64_t file_size, int deadline_ms) {
    if (libav_library_load() != MB_OK) return NULL;
    pthread_once(&log_once, install_log_callback);
    mvid_video *video = calloc(1, sizeof *video);
    if (video == NULL) return NULL;
    video->fd = fd;
    video->size = file_size;
    video->stream_index = -1;
    video->deadline_ns = monotonic_ns() + (int64_t)deadline_ms * 1000000;
    return video;
}

void mvid_destroy(mvid_video *video) {
    if (video == NULL) return;
    video_being_read = video;
    avcodec_free_context(&video->codec);
    avformat_close_input(&video->format);
    if (video->io != NULL) {
        av_free(video->io->buffer);
        avio_context_free(&video->io);
    }
    video_being_read = NULL;
    free(video->rgb);
    free(video);
}

const mb_message *mvid_message(const mvid_video *video) { return &video->message; }

/// The status of an FFmpeg error, its words in the message unless a log line came first.
static mb_status failure(mvid_video *video, int error, const char *doing) {
    char words[128];
    av_strerror(error, words, sizeof words);
    mb_message_set(&video->message, "%s: %s", doing, words);
    if (error == AVERROR(EIO) && video->message.error_number != 0) return MB_IO;
    if (error == AVERROR(ENOMEM)) return MB_LIMIT;
    if (error == AVERROR_EOF) return MB_TRUNCATED;
    if (error == AVERROR_DECODER_NOT_FOUND || error == AVERROR_PATCHWELCOME) return MB_UNSUPPORTED;
    return MB_MALFORMED;
}

static int rotation_of(const AVStream *stream) {
    const int32_t *matrix = (const int32_t *)av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix == NULL) return 0;
    double counterclockwise = av_display_rotation_get(matrix);
    if (counterclockwise != counterclockwise) return 0;   // NaN: a degenerate matrix
    long clockwise = lround(-counterclockwise / 90.0) * 90;
    return (int)(((clockwise % 360) + 360) % 360);
}

mb_status mvid_open(mvid_video *video, const char *demuxer, int max_streams, mvid_info *info) {
    memset(info, 0, sizeof *info);
    video_being_read = video;
    mb_status status = MB_OK;
    const AVInputFormat *input = av_find_input_format(demuxer);
    if (input == NULL) {
        mb_message_set(&video->message, "this FFmpeg has no %s demuxer", demuxer);
        status = MB_UNSUPPORTED;
        goto done;
    }
    unsigned char *buffer = av_malloc(io_buffer_size);
    if (buffer == NULL || (video->io = avio_alloc_context(buffer, io_buffer_size, 0, video, read_packet, NULL, seek_packet)) == NULL) {
        av_free(buffer);
        status = MB_LIMIT;
        goto done;
    }
    AVFormatContext *format = avformat_alloc_context();
    if (format == NULL) { status = MB_LIMIT; goto done; }
    format->pb = video->io;
    format->opaque = video;
    format->io_open = refuse_io_open;
    format->interrupt_callback = (AVIOInterruptCB){ interrupt, video };
    format->max_streams = max_streams;
    format->probesize = 1 << 20;
    format->max_analyze_duration = 5 * (int64_t)AV_TIME_BASE;
    format->format_whitelist = av_strdup(allowed_demuxers);
    int error = avformat_open_input(&format, NULL, input, NULL);   // frees `format` on failure
    if (error < 0) { status = failure(video, error, "the container could not be read"); goto done; }
    video->format = format;
    if ((int)format->nb_streams > max_streams) {
        mb_message_set(&video->message, "%u streams, more than %d", format->nb_streams, max_streams);
        status = MB_LIMIT;
        goto done;
    }
    error = avformat_find_stream_info(format, NULL);
    if (error < 0) { status = failure(video, error, "the streams could not be read"); goto done; }
    for (unsigned i = 0; i < format->nb_streams; i++) {
        const AVStream *stream = format->streams[i];
        if (stream->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && !(stream->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
            video->stream_index = (int)i;
            break;
        }
    }
    if (video->stream_index < 0) {
        mb_message_set(&video->message, "no video stream");
        status = MB_UNSUPPORTED;
        goto done;
    }
    const AVStream *stream = format->streams[video->stream_index];
    const AVCodecParameters *parameters = stream->codecpar;
    info->width = parameters->width;
    info->height = parameters->height;
    AVRational sar = stream->sample_aspect_ratio;
    info->sar_num = sar.num > 0 && sar.den > 0 ? sar.num : 0;
    info->sar_den = sar.num > 0 && sar.den > 0 ? sar.den : 1;
    info->rotation = rotation_of(stream);
    if (info->width <= 0 || info->height <= 0) {
        mb_message_set(&video->message, "the video stream has no picture size");
        status = MB_MALFORMED;
    }
done:
    video_being_read = NULL;
    return status;
}

/// The poster's timestamp in the stream's time base: 10 % of the duration after its start, or
/// the lowest there is for a clip under a second or of unknown length.
static int64_t poster_timestamp(const AVFormatContext *format, const AVStream *stream) {
    AVRational base = stream->time_base;
    if (base.num <= 0 || base.den <= 0) return INT64_MIN;
    long double duration_seconds = stream->duration > 0 ? (long double)stream->duration * base.num / base.den
                                 : format->duration > 0 ? (long double)format->duration / AV_TIME_BASE : 0;
    if (duration_seconds < 1) return INT64_MIN;
    int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    return start + (int64_t)(duration_seconds / 10 * base.den / base.num);
}

static int swscale_matrix(enum AVColorSpace space, int height) {
    switch (space) {
    case AVCOL_SPC_BT709: return SWS_CS_ITU709;
    case AVCOL_SPC_BT2020_NCL: case AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020;
    case AVCOL_SPC_FCC: return SWS_CS_FCC;
    case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M;
    case AVCOL_SPC_BT470BG: case AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601;
    default: return height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601;   // unspecified: HD is BT.709, SD BT.601
    }
}

static int is_full_range(const AVFrame *frame) {
    switch (frame->format) {
    case AV_PIX_FMT_YUVJ420P: case AV_PIX_FMT_YUVJ422P: case AV_PIX_FMT_YUVJ444P: case AV_PIX_FMT_YUVJ440P: case AV_PIX_FMT_YUVJ411P:
        return 1;
    default:
        return frame->color_range == AVCOL_RANGE_JPEG;
    }
}

/// The HDR transfer of `frame` (the decoder's, else the container's), or mvid_transfer_sdr.
static mvid_transfer hdr_transfer(const AVFrame *frame, const AVCodecParameters *stream) {
    enum AVColorTransferCharacteristic transfer = frame->color_trc != AVCOL_TRC_UNSPECIFIED ? frame->color_trc : stream->color_trc;
    switch (transfer) {
    case AVCOL_TRC_SMPTE2084: return mvid_transfer_pq;
    case AVCOL_TRC_ARIB_STD_B67: return mvid_transfer_hlg;
    default: return mvid_transfer_sdr;
    }
}

/// Converts `frame` to `width` × `height` 8-bit RGB with its matrix and range: SDR straight to
/// RGB24; HDR (PQ, HLG) to 16-bit RGB, then tone-mapped row by row (tone_map.h).
static mb_status convert(mvid_video *video, const AVFrame *frame, const AVCodecParameters *stream, int width, int height) {
    size_t row = (size_t)width * 3;
    mvid_transfer transfer = hdr_transfer(frame, stream);
    size_t sample_bytes = transfer == mvid_transfer_sdr ? 1 : 2;
    uint8_t *converted = NULL;
    if (width <= 0 || height <= 0 || (video->rgb = malloc(row * (size_t)height)) == NULL
        || (sample_bytes == 2 && (converted = malloc(row * sample_bytes * (size_t)height)) == NULL)) {
        mb_message_set(&video->message, "out of memory for a %dx%d poster", width, height);
        return MB_LIMIT;
    }
    video->rgb_width = width;
    mb_status status = MB_OK;
    struct SwsContext *scaler = sws_getContext(frame->width, frame->height, frame->format, width, height,
                                               sample_bytes == 1 ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_RGB48,
                                               SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
    if (scaler == NULL) {
        mb_message_set(&video->message, "swscale cannot convert this pixel format");
        status = MB_UNSUPPORTED;
        goto done;
    }
    int matrix = swscale_matrix(frame->colorspace, frame->height);
    sws_setColorspaceDetails(scaler, sws_getCoefficients(matrix), is_full_range(frame),
                             sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
    uint8_t *planes[4] = { sample_bytes == 1 ? video->rgb : converted, NULL, NULL, NULL };
    int strides[4] = { (int)(row * sample_bytes), 0, 0, 0 };
    int rows = sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    sws_freeContext(scaler);
    if (rows != height) {
        mb_message_set(&video->message, "swscale made %d rows of %d", rows, height);
        status = MB_MALFORMED;
        goto done;
    }
    if (sample_bytes == 2) {
        enum AVColorPrimaries primaries = frame->color_primaries != AVCOL_PRI_UNSPECIFIED ? frame->color_primaries : stream->color_primaries;
        // An HDR stream that does not name its primaries is taken as BT.2020 (BT.2100's).
        int bt2020 = primaries == AVCOL_PRI_BT2020 || primaries == AVCOL_PRI_UNSPECIFIED;
        for (int y = 0; y < height; y++) {
            mvid_tone_map_row((const uint16_t *)(converted + (size_t)y * row * 2), video->rgb + (size_t)y * row, width, transfer, bt2020);
        }
    }
done:
    free(converted);
    return status;
}

mb_status mvid_decode_poster(mvid_video *video, int width, int height, int max_packets, int64_t max_pixels) {
    if (video->format == NULL || video->stream_index < 0 || video->rgb != NULL) return MB_USAGE;
    video_being_read = video;
    mb_status status = MB_OK;
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc(), *last = av_frame_alloc();
    if (packet == NULL || frame == NULL || last == NULL) { status = MB_LIMIT; goto done; }
    AVStream *stream = video->format->streams[video->stream_index];
    const AVCodec *decoder = avcodec_find_decoder(stream->codecpar->codec_id);
    if (decoder == NULL) {
        mb_message_set(&video->message, "this FFmpeg has no %s decoder", avcodec_get_name(stream->codecpar->codec_id));
        status = MB_UNSUPPORTED;
        goto done;
    }
    if ((video->codec = avcodec_alloc_context3(decoder)) == NULL) { status = MB_LIMIT; goto done; }
    int error = avcodec_parameters_to_context(video->codec, stream->codecpar);
    if (error < 0) { status = failure(video, error, "the decoder could not be set up"); goto done; }
    video->codec->thread_count = 1;
    video->codec->max_pixels = max_pixels;
    if ((error = avcodec_open2(video->codec, decoder, NULL)) < 0) { status = failure(video, error, "the decoder could not be opened"); goto done; }
    int64_t target = poster_timestamp(video->format, stream);
    if (target != INT64_MIN && av_seek_frame(video->format, video->stream_index, target, AVSEEK_FLAG_BACKWARD) < 0) {
        // No index to seek with: decode from the start, which gives the same frame.
        av_seek_frame(video->format, video->stream_index, INT64_MIN, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY);
    }
    int found = 0, have_last = 0, draining = 0, first_error = 0, packets = 0, video_packets = 0;
    for (; !found && packets <= max_packets; packets++) {
        if (past_deadline(video)) { status = MB_LIMIT; goto done; }
        if (!draining) {
            error = av_read_frame(video->format, packet);
            if (error == AVERROR_EXIT) { status = MB_LIMIT; goto done; }
            if (error < 0) {
                draining = 1;
                error = avcodec_send_packet(video->codec, NULL);
            } else if (packet->stream_index != video->stream_index) {
                av_packet_unref(packet);
                continue;
            } else {
                video_packets++;
                error = avcodec_send_packet(video->codec, packet);
                av_packet_unref(packet);
            }
            if (error < 0 && error != AVERROR(EAGAIN) && first_error == 0) first_error = error;
        }
        for (;;) {
            error = avcodec_receive_frame(video->codec, frame);
            if (error == AVERROR(EAGAIN)) break;
            if (error == AVERROR_EOF) { found = have_last; goto decoded; }
            if (error < 0) { if (first_error == 0) first_error = error; break; }
            AVFrame *swap = last; last = frame; frame = swap;
            have_last = 1;
            if (last->best_effort_timestamp == AV_NOPTS_VALUE || target == INT64_MIN || last->best_effort_timestamp >= target) {
                found = 1;
                break;
            }
        }
        if (draining && !found) { found = have_last; break; }
    }
decoded:
    // The packets ran out before the poster's time (a file without an index to seek with): the
    // last frame decoded stands in, the same one on every run.
    if (!found && have_last) found = 1;
    if (!found) {
        if (first_error != 0) status = failure(video, first_error, "no picture decoded");
        else {
            mb_message_set(&video->message, "no picture decoded from %d packets of the video stream", video_packets);
            status = MB_MALFORMED;
        }
        goto done;
    }
    if (last->width != stream->codecpar->width || last->height != stream->codecpar->height) {
        mb_message_set(&video->message, "a frame of %dx%d in a stream of %dx%d", last->width, last->height,
                       stream->codecpar->width, stream->codecpar->height);
        status = MB_MALFORMED;
        goto done;
    }
    status = convert(video, last, stream->codecpar, width, height);
done:
    av_packet_free(&packet);
    av_frame_free(&frame);
    av_frame_free(&last);
    video_being_read = NULL;
    return status;
}

const uint8_t *mvid_row(const mvid_video *video, int y) {
    return video->rgb == NULL ? NULL : video->rgb + (size_t)y * (size_t)video->rgb_width * 3;
}
