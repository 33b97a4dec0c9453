#ifndef MASONRY_LIBHEIF_FUNCTIONS_H
#define MASONRY_LIBHEIF_FUNCTIONS_H
// libheif, loaded on the first HEIF or AVIF file (issue #34): it brings libde265, dav1d, aom and x265 with it.
// The bridge's calls keep their names: each one below is a macro for the pointer that
// libheif_library resolved, so a call the list lacks fails to link (nothing links libheif).
// Every entry point of the bridge calls libheif_library_load() before its first call.

#include <libheif/heif.h>
#include "bridge_support.h"

#define LIBHEIF_LIBRARY_FUNCTIONS(X) \
    X(heif_context_alloc) \
    X(heif_context_free) \
    X(heif_context_get_primary_image_handle) \
    X(heif_context_get_primary_image_ID) \
    X(heif_context_read_from_reader) \
    X(heif_context_set_max_decoding_threads) \
    X(heif_context_set_maximum_image_size_limit) \
    X(heif_decode_image) \
    X(heif_decoder_descriptor_get_id_name) \
    X(heif_decoder_descriptor_get_name) \
    X(heif_decoding_options_alloc) \
    X(heif_decoding_options_free) \
    X(heif_get_decoder_descriptors) \
    X(heif_get_version) \
    X(heif_have_decoder_for_format) \
    X(heif_image_get_bits_per_pixel_range) \
    X(heif_image_get_height) \
    X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) \
    X(heif_image_handle_get_luma_bits_per_pixel) \
    X(heif_image_handle_get_thumbnail) \
    X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_release) \
    X(heif_image_is_premultiplied_alpha) \
    X(heif_image_release) \
    X(heif_image_get_nclx_color_profile) \
    X(heif_image_handle_get_nclx_color_profile) \
    X(heif_nclx_color_profile_free)

/// The pointers, once loaded; libheif_library_load() loads libheif.so.1 on the first call (MB_OK, or
/// MB_UNSUPPORTED with libheif_library.failure set).
MB_DECLARE_LIBRARY(libheif, LIBHEIF_LIBRARY_FUNCTIONS(MB_FUNCTION_POINTER))

// The defining file (libheif_functions.c) names the pointers themselves.
#ifndef LIBHEIF_FUNCTIONS_DEFINITION
#define heif_context_alloc libheif_functions.heif_context_alloc
#define heif_context_free libheif_functions.heif_context_free
#define heif_context_get_primary_image_handle libheif_functions.heif_context_get_primary_image_handle
#define heif_context_read_from_reader libheif_functions.heif_context_read_from_reader
#define heif_context_set_max_decoding_threads libheif_functions.heif_context_set_max_decoding_threads
#define heif_context_set_maximum_image_size_limit libheif_functions.heif_context_set_maximum_image_size_limit
#define heif_decode_image libheif_functions.heif_decode_image
#define heif_decoder_descriptor_get_id_name libheif_functions.heif_decoder_descriptor_get_id_name
#define heif_decoder_descriptor_get_name libheif_functions.heif_decoder_descriptor_get_name
#define heif_decoding_options_alloc libheif_functions.heif_decoding_options_alloc
#define heif_decoding_options_free libheif_functions.heif_decoding_options_free
#define heif_get_decoder_descriptors libheif_functions.heif_get_decoder_descriptors
#define heif_get_version libheif_functions.heif_get_version
#define heif_have_decoder_for_format libheif_functions.heif_have_decoder_for_format
#define heif_image_get_bits_per_pixel_range libheif_functions.heif_image_get_bits_per_pixel_range
#define heif_image_get_height libheif_functions.heif_image_get_height
#define heif_image_get_plane_readonly libheif_functions.heif_image_get_plane_readonly
#define heif_image_get_width libheif_functions.heif_image_get_width
#define heif_image_handle_get_luma_bits_per_pixel libheif_functions.heif_image_handle_get_luma_bits_per_pixel
#define heif_image_handle_get_thumbnail libheif_functions.heif_image_handle_get_thumbnail
#define heif_image_handle_has_alpha_channel libheif_functions.heif_image_handle_has_alpha_channel
#define heif_image_handle_release libheif_functions.heif_image_handle_release
#define heif_image_is_premultiplied_alpha libheif_functions.heif_image_is_premultiplied_alpha
#define heif_image_release libheif_functions.heif_image_release
#define heif_context_get_primary_image_ID libheif_functions.heif_context_get_primary_image_ID
#define heif_image_get_nclx_color_profile libheif_functions.heif_image_get_nclx_color_profile
#define heif_image_handle_get_nclx_color_profile libheif_functions.heif_image_handle_get_nclx_color_profile
#define heif_nclx_color_profile_free libheif_functions.heif_nclx_color_profile_free
#endif

#endif
