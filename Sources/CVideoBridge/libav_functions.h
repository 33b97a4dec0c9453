#ifndef MASONRY_LIBAV_FUNCTIONS_H
#define MASONRY_LIBAV_FUNCTIONS_H
// FFmpeg's libraries, loaded on the first video file (issue #30): linked, they would double a
// run's start-up memory. libavformat.so.59 brings libavcodec.so.59 and libavutil.so.57 as its
// dependencies, and dlsym on its handle finds their functions too; libswscale.so.6 is a library
// of its own, loaded by the same first call. The bridge's calls keep their names: each one below
// is a macro for the pointer resolved, so a call the lists lack fails to link.
// Every entry point of the bridge calls libav_library_load() before its first call.

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include "bridge_support.h"

/// Functions of libavformat, libavcodec and libavutil (found through libavformat's handle).
#define LIBAVFORMAT_LIBRARY_FUNCTIONS(X) \
    X(av_find_input_format) \
    X(avformat_alloc_context) \
    X(avformat_close_input) \
    X(avformat_find_stream_info) \
    X(avformat_open_input) \
    X(avformat_version) \
    X(av_read_frame) \
    X(av_seek_frame) \
    X(avio_alloc_context) \
    X(avio_context_free) \
    X(avcodec_alloc_context3) \
    X(avcodec_find_decoder) \
    X(avcodec_flush_buffers) \
    X(avcodec_free_context) \
    X(avcodec_get_name) \
    X(avcodec_open2) \
    X(avcodec_parameters_to_context) \
    X(avcodec_receive_frame) \
    X(avcodec_send_packet) \
    X(av_display_rotation_get) \
    X(av_frame_alloc) \
    X(av_frame_free) \
    X(av_free) \
    X(av_log_set_callback) \
    X(av_log_set_level) \
    X(av_malloc) \
    X(av_packet_alloc) \
    X(av_packet_free) \
    X(av_packet_unref) \
    X(av_stream_get_side_data) \
    X(av_strdup) \
    X(av_strerror) \
    X(av_version_info)

/// Functions of libswscale.
#define LIBSWSCALE_LIBRARY_FUNCTIONS(X) \
    X(sws_freeContext) \
    X(sws_getCoefficients) \
    X(sws_getContext) \
    X(sws_scale) \
    X(sws_setColorspaceDetails)

/// Pointers to the FFmpeg functions the bridge calls, once loaded.
struct libav_library_functions {
    LIBAVFORMAT_LIBRARY_FUNCTIONS(MB_FUNCTION_POINTER)
    LIBSWSCALE_LIBRARY_FUNCTIONS(MB_FUNCTION_POINTER)
};
extern struct libav_library_functions libav_functions;
extern mb_library libavformat_library;

/// Loads libavformat.so.59 (with its libavcodec and libavutil) and libswscale.so.6 on the
/// first call; MB_OK, or MB_UNSUPPORTED with libavformat_library.failure set.
static inline mb_status libav_library_load(void) { return mb_library_load(&libavformat_library); }

// The defining file (libav_functions.c) names the pointers themselves.
#ifndef LIBAV_FUNCTIONS_DEFINITION
#define av_find_input_format libav_functions.av_find_input_format
#define avformat_alloc_context libav_functions.avformat_alloc_context
#define avformat_close_input libav_functions.avformat_close_input
#define avformat_find_stream_info libav_functions.avformat_find_stream_info
#define avformat_open_input libav_functions.avformat_open_input
#define avformat_version libav_functions.avformat_version
#define av_read_frame libav_functions.av_read_frame
#define av_seek_frame libav_functions.av_seek_frame
#define avio_alloc_context libav_functions.avio_alloc_context
#define avio_context_free libav_functions.avio_context_free
#define avcodec_alloc_context3 libav_functions.avcodec_alloc_context3
#define avcodec_find_decoder libav_functions.avcodec_find_decoder
#define avcodec_flush_buffers libav_functions.avcodec_flush_buffers
#define avcodec_free_context libav_functions.avcodec_free_context
#define avcodec_get_name libav_functions.avcodec_get_name
#define avcodec_open2 libav_functions.avcodec_open2
#define avcodec_parameters_to_context libav_functions.avcodec_parameters_to_context
#define avcodec_receive_frame libav_functions.avcodec_receive_frame
#define avcodec_send_packet libav_functions.avcodec_send_packet
#define av_display_rotation_get libav_functions.av_display_rotation_get
#define av_frame_alloc libav_functions.av_frame_alloc
#define av_frame_free libav_functions.av_frame_free
#define av_free libav_functions.av_free
#define av_log_set_callback libav_functions.av_log_set_callback
#define av_log_set_level libav_functions.av_log_set_level
#define av_malloc libav_functions.av_malloc
#define av_packet_alloc libav_functions.av_packet_alloc
#define av_packet_free libav_functions.av_packet_free
#define av_packet_unref libav_functions.av_packet_unref
#define av_stream_get_side_data libav_functions.av_stream_get_side_data
#define av_strdup libav_functions.av_strdup
#define av_strerror libav_functions.av_strerror
#define av_version_info libav_functions.av_version_info
#define sws_freeContext libav_functions.sws_freeContext
#define sws_getCoefficients libav_functions.sws_getCoefficients
#define sws_getContext libav_functions.sws_getContext
#define sws_scale libav_functions.sws_scale
#define sws_setColorspaceDetails libav_functions.sws_setColorspaceDetails
#endif

#endif
