#include "HEIFBridge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libheif_functions.h"

struct mheif_decoder {
    int fd;
    int64_t file_size;
    int64_t position;
    int read_errno;                  // set when pread failed (not merely past the end)
    int64_t overlay_at[4];           // 4 bytes shown otherwise at each of these offsets
    uint8_t overlay[4][4];
    int overlays;
    uint8_t *appended;               // bytes shown after the file's end, or NULL
    size_t appended_size;
    struct heif_context *context;
    struct heif_image_handle *primary;
    struct heif_image *image;
    const uint8_t *plane;            // interleaved RGB(A), or the luma plane of a monochrome picture
    int stride;
    mheif_image_info info;
    int premultiplied;
    int monochrome;
    // A monochrome picture: its alpha plane (or NULL), alpha's bits, and whether luma is in the
    // limited range (16..235 scaled to its bits) rather than the full one.
    const uint8_t *alpha_plane;
    int alpha_stride;
    int alpha_bits;
    int limited_range;
    uint8_t *row;                    // the converted row, for deep or premultiplied pictures
    mb_message message;
};

const char *mheif_library_failure(void) {
    return libheif_library_load() == MB_OK ? NULL : libheif_library.failure.text;
}

const char *mheif_version(void) { return libheif_library_load() == MB_OK ? heif_get_version() : "not loaded"; }

/// The decoder the bridge has libheif use: for AV1, aom when this build has it, because dav1d
/// (libheif's first choice) prints its complaints about damaged data to stderr and aom does not;
/// otherwise libheif's first choice.
static const struct heif_decoder_descriptor *chosen_decoder(int av1) {
    enum heif_compression_format format = av1 ? heif_compression_AV1 : heif_compression_HEVC;
    if (!heif_have_decoder_for_format(format)) return NULL;
    const struct heif_decoder_descriptor *decoders[8] = { NULL };
    int count = heif_get_decoder_descriptors(format, decoders, 8);
    if (count < 1) return NULL;
    for (int i = 0; av1 && i < count; i++) {
        const char *id = heif_decoder_descriptor_get_id_name(decoders[i]);
        if (id && strcmp(id, "aom") == 0) return decoders[i];
    }
    return decoders[0];
}

const char *mheif_decoder_name(int av1) {
    if (libheif_library_load() != MB_OK) return NULL;
    const struct heif_decoder_descriptor *decoder = chosen_decoder(av1);
    return decoder ? heif_decoder_descriptor_get_name(decoder) : NULL;
}

// MARK: The reader over pread

static int64_t reader_position(void *userdata) { return ((mheif_decoder *)userdata)->position; }

/// The size libheif sees: the file, then the appended meta box.
static int64_t shown_size(const mheif_decoder *decoder) { return decoder->file_size + (int64_t)decoder->appended_size; }

static int reader_read(void *data, size_t size, void *userdata) {
    mheif_decoder *decoder = userdata;
    int64_t position = decoder->position;
    if (position < 0 || (int64_t)size > shown_size(decoder) - position) return 1;
    uint8_t *out = data;
    size_t in_file = position < decoder->file_size ? (size_t)(decoder->file_size - position) : 0;
    if (in_file > size) in_file = size;
    size_t done = 0;
    while (done < in_file) {
        ssize_t got = pread(decoder->fd, out + done, in_file - done, position + (int64_t)done);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            decoder->read_errno = errno;
            return 1;
        }
        if (got == 0) return 1;
        done += (size_t)got;
    }
    if (size > in_file) memcpy(out + in_file, decoder->appended + (position + (int64_t)in_file - decoder->file_size), size - in_file);
    for (int k = 0; k < decoder->overlays; k++) {
        for (int i = 0; i < 4; i++) {
            int64_t at = decoder->overlay_at[k] + i;
            if (at >= position && at < position + (int64_t)in_file) out[at - position] = decoder->overlay[k][i];
        }
    }
    decoder->position += (int64_t)size;
    return 0;
}

static int reader_seek(int64_t position, void *userdata) {
    mheif_decoder *decoder = userdata;
    if (position < 0 || position > shown_size(decoder)) return 1;
    decoder->position = position;
    return 0;
}

static enum heif_reader_grow_status reader_wait(int64_t target_size, void *userdata) {
    mheif_decoder *decoder = userdata;
    return target_size > shown_size(decoder) ? heif_reader_grow_status_size_beyond_eof
                                            : heif_reader_grow_status_size_reached;
}

static const struct heif_reader pread_reader = {
    .reader_api_version = 1,
    .get_position = reader_position,
    .read = reader_read,
    .seek = reader_seek,
    .wait_for_file_size = reader_wait,
};

// MARK: Errors

static mb_status fail(mheif_decoder *decoder, mb_status status, const char *message) {
    snprintf(decoder->message.text, sizeof decoder->message.text, "%s", message ? message : "");
    return status;
}

/// The status of a libheif error, its message copied.
static mb_status check(mheif_decoder *decoder, struct heif_error error) {
    if (error.code == heif_error_Ok) return MB_OK;
    if (decoder->read_errno) {
        snprintf(decoder->message.text, sizeof decoder->message.text, "read failed: %s", strerror(decoder->read_errno));
        return MB_IO;
    }
    mb_status status;
    switch (error.code) {
    case heif_error_Memory_allocation_error: status = MB_LIMIT; break;
    case heif_error_Unsupported_feature:
    case heif_error_Unsupported_filetype: status = MB_UNSUPPORTED; break;
    default: status = MB_MALFORMED; break;
    }
    if (error.subcode == heif_suberror_Security_limit_exceeded) status = MB_LIMIT;
    return fail(decoder, status, error.message);
}

// MARK: The decoder

mheif_decoder *mheif_decoder_create_fd(int fd, int64_t file_size, int max_side) {
    if (libheif_library_load() != MB_OK) return NULL;
    mheif_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->fd = fd;
    decoder->file_size = file_size;
    decoder->context = heif_context_alloc();
    if (!decoder->context) {
        free(decoder);
        return NULL;
    }
    heif_context_set_maximum_image_size_limit(decoder->context, max_side);
    // 0: grid tiles are decoded one after the other on the calling thread (1 would start a
    // background thread and wait for it), so a decode costs one of Masonry's workers.
    heif_context_set_max_decoding_threads(decoder->context, 0);
    return decoder;
}

void mheif_decoder_destroy(mheif_decoder *decoder) {
    if (!decoder) return;
    free(decoder->row);
    free(decoder->appended);
    if (decoder->image) heif_image_release(decoder->image);
    if (decoder->primary) heif_image_handle_release(decoder->primary);
    heif_context_free(decoder->context);
    free(decoder);
}

mb_status mheif_decoder_overlay(mheif_decoder *decoder, int64_t offset, const uint8_t *bytes) {
    if (decoder->overlays == 4 || offset < 0 || offset + 4 > decoder->file_size || !bytes) {
        return fail(decoder, MB_UNSUPPORTED, "overlay out of place");
    }
    decoder->overlay_at[decoder->overlays] = offset;
    memcpy(decoder->overlay[decoder->overlays], bytes, 4);
    decoder->overlays++;
    return MB_OK;
}

mb_status mheif_decoder_append(mheif_decoder *decoder, const uint8_t *bytes, size_t count) {
    if (decoder->appended || !bytes || count == 0) return fail(decoder, MB_UNSUPPORTED, "bytes appended twice");
    decoder->appended = malloc(count);
    if (!decoder->appended) return fail(decoder, MB_LIMIT, "out of memory");
    memcpy(decoder->appended, bytes, count);
    decoder->appended_size = count;
    return MB_OK;
}

const mb_message *mheif_decoder_message(const mheif_decoder *decoder) { return &decoder->message; }

mb_status mheif_decoder_read(mheif_decoder *decoder, uint32_t *primary_id) {
    mb_status status = check(decoder, heif_context_read_from_reader(decoder->context, &pread_reader, decoder, NULL));
    if (status != MB_OK) return status;
    heif_item_id id = 0;
    status = check(decoder, heif_context_get_primary_image_ID(decoder->context, &id));
    if (status != MB_OK) return status;
    *primary_id = id;
    return check(decoder, heif_context_get_primary_image_handle(decoder->context, &decoder->primary));
}

/// Whether a monochrome picture's luma is in the limited range: the item's `colr` nclx box when
/// it has one (MIAF: it overrides the coded stream), else what the decoder read from the stream
/// (AV1's color_range), else full (libheif's default nclx).
static int luma_range_is_limited(const struct heif_image_handle *handle, const struct heif_image *image) {
    struct heif_color_profile_nclx *nclx = NULL;
    struct heif_error error = heif_image_handle_get_nclx_color_profile(handle, &nclx);
    if (error.code != heif_error_Ok || !nclx) error = heif_image_get_nclx_color_profile(image, &nclx);
    if (error.code != heif_error_Ok || !nclx) return 0;
    int limited = !nclx->full_range_flag;
    heif_nclx_color_profile_free(nclx);
    return limited;
}

mb_status mheif_decoder_decode(mheif_decoder *decoder, uint32_t thumbnail_id, int av1, int monochrome, mheif_image_info *info) {
    if (!decoder->primary || decoder->image) return fail(decoder, MB_UNSUPPORTED, "decode called out of order");
    struct heif_image_handle *handle = decoder->primary;
    struct heif_image_handle *thumbnail = NULL;
    if (thumbnail_id != 0) {
        mb_status status = check(decoder, heif_image_handle_get_thumbnail(decoder->primary, thumbnail_id, &thumbnail));
        if (status != MB_OK) return status;
        handle = thumbnail;
    }
    int alpha = heif_image_handle_has_alpha_channel(handle);
    int deep = heif_image_handle_get_luma_bits_per_pixel(handle) > 8;
    enum heif_colorspace colorspace = monochrome ? heif_colorspace_monochrome : heif_colorspace_RGB;
    enum heif_chroma chroma = monochrome ? heif_chroma_monochrome
                            : deep ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                                   : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (!options) {
        if (thumbnail) heif_image_handle_release(thumbnail);
        return fail(decoder, MB_LIMIT, "out of memory");
    }
    options->convert_hdr_to_8bit = 0;
    const struct heif_decoder_descriptor *chosen = chosen_decoder(av1);
    if (chosen) options->decoder_id = heif_decoder_descriptor_get_id_name(chosen);
    mb_status status = check(decoder, heif_decode_image(handle, &decoder->image, colorspace, chroma, options));
    heif_decoding_options_free(options);
    decoder->monochrome = monochrome;
    if (status == MB_OK && monochrome) decoder->limited_range = luma_range_is_limited(handle, decoder->image);
    if (thumbnail) heif_image_handle_release(thumbnail);
    if (status != MB_OK) return status;

    enum heif_channel channel = monochrome ? heif_channel_Y : heif_channel_interleaved;
    decoder->plane = heif_image_get_plane_readonly(decoder->image, channel, &decoder->stride);
    int width = heif_image_get_width(decoder->image, channel);
    int height = heif_image_get_height(decoder->image, channel);
    int bits = heif_image_get_bits_per_pixel_range(decoder->image, channel);
    if (!decoder->plane || width <= 0 || height <= 0 || bits < 8 || bits > 16 || (bits > 8) != deep) {
        return fail(decoder, MB_MALFORMED, "libheif returned no usable picture");
    }
    if (monochrome && alpha) {
        decoder->alpha_plane = heif_image_get_plane_readonly(decoder->image, heif_channel_Alpha, &decoder->alpha_stride);
        decoder->alpha_bits = heif_image_get_bits_per_pixel_range(decoder->image, heif_channel_Alpha);
        if (!decoder->alpha_plane || decoder->alpha_bits < 1 || decoder->alpha_bits > 16
            || heif_image_get_width(decoder->image, heif_channel_Alpha) != width
            || heif_image_get_height(decoder->image, heif_channel_Alpha) != height) {
            return fail(decoder, MB_MALFORMED, "libheif returned no usable alpha plane");
        }
    }
    decoder->info = (mheif_image_info){ .width = (uint32_t)width, .height = (uint32_t)height,
                                        .channels = alpha ? 4 : 3, .bits = bits };
    decoder->premultiplied = alpha && heif_image_is_premultiplied_alpha(decoder->image);
    if (deep || decoder->premultiplied || monochrome) {
        decoder->row = malloc((size_t)width * (size_t)decoder->info.channels);
        if (!decoder->row) return fail(decoder, MB_LIMIT, "out of memory");
    }
    *info = decoder->info;
    return MB_OK;
}

/// Sample `x` of a plane row of `bits` bits (two bytes, little-endian, when over 8).
static uint32_t sample(const uint8_t *row, int bits, size_t x) {
    return bits > 8 ? (uint32_t)row[2 * x] | (uint32_t)row[2 * x + 1] << 8 : row[x];
}

/// A full-range sample of `bits` bits scaled to 8 with rounding: (v * 255 + max / 2) / max.
static uint8_t to_8bit(uint32_t value, int bits) {
    uint32_t top = (1u << bits) - 1;
    if (value > top) value = top;
    return (uint8_t)((value * 255 + top / 2) / top);
}

/// Row `y` of a monochrome picture as grey RGB(A): limited-range luma is expanded,
/// (v - 16·2^(bits-8)) · 255 / (219·2^(bits-8)), rounded and clamped, as libavif does.
static void monochrome_row(mheif_decoder *decoder, uint32_t y) {
    const uint8_t *luma = decoder->plane + (size_t)y * (size_t)decoder->stride;
    const uint8_t *alpha = decoder->alpha_plane ? decoder->alpha_plane + (size_t)y * (size_t)decoder->alpha_stride : NULL;
    int bits = decoder->info.bits, channels = decoder->info.channels;
    int64_t offset = (int64_t)16 << (bits - 8), range = (int64_t)219 << (bits - 8);
    for (size_t x = 0; x < decoder->info.width; x++) {
        uint32_t value = sample(luma, bits, x);
        uint8_t grey;
        if (decoder->limited_range) {
            int64_t scaled = ((int64_t)value - offset) * 255;
            scaled = scaled < 0 ? -((-scaled + range / 2) / range) : (scaled + range / 2) / range;
            grey = (uint8_t)(scaled < 0 ? 0 : scaled > 255 ? 255 : scaled);
        } else {
            grey = to_8bit(value, bits);
        }
        uint8_t *pixel = decoder->row + x * (size_t)channels;
        pixel[0] = pixel[1] = pixel[2] = grey;
        if (alpha) pixel[3] = to_8bit(sample(alpha, decoder->alpha_bits, x), decoder->alpha_bits);
    }
}

const uint8_t *mheif_decoder_row(mheif_decoder *decoder, uint32_t y) {
    if (!decoder->plane || y >= decoder->info.height) return NULL;
    const uint8_t *source = decoder->plane + (size_t)y * (size_t)decoder->stride;
    if (!decoder->row) return source;
    size_t count = (size_t)decoder->info.width * (size_t)decoder->info.channels;
    if (decoder->monochrome) {
        monochrome_row(decoder, y);
    } else if (decoder->info.bits > 8) {
        for (size_t i = 0; i < count; i++) decoder->row[i] = to_8bit(sample(source, decoder->info.bits, i), decoder->info.bits);
    } else {
        memcpy(decoder->row, source, count);
    }
    if (decoder->premultiplied) {
        for (size_t i = 0; i < count; i += 4) {
            uint32_t alpha = decoder->row[i + 3];
            for (size_t c = 0; c < 3; c++) {
                uint32_t value = alpha ? (decoder->row[i + c] * 255u + alpha / 2) / alpha : 0;
                decoder->row[i + c] = (uint8_t)(value > 255 ? 255 : value);
            }
        }
    }
    return decoder->row;
}
