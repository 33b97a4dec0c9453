// See JXLBridge.h: every libjxl call of Masonry.

#include "JXLBridge.h"
#include "libjxl_functions.h"
#include "libjxl_quiet.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
    BLOCK_SIZE = 1 << 20,          // bytes read from the file at a time
    MAX_ICC_SIZE = 1 << 22,        // a larger "profile" is refused (4 MiB; ICCProfile checks it again)
    ALLOCATION_HEADER = 16         // the size in front of each allocation (keeps malloc's alignment)
};

/// What libjxl allocates through the memory manager, against the budget.
typedef struct {
    uint64_t budget;
    uint64_t used;
    uint64_t peak;
    int refused;                   // an allocation was refused: libjxl's failure is the budget's
} allocation_budget;

/// The file's bytes as libjxl is fed them.
typedef struct {
    int fd;
    int64_t size;
    int64_t offset;                // the next file byte to read
    uint8_t *bytes;                // what libjxl was last given
    size_t count;
    size_t capacity;
} input_feed;

struct mjxl_decoder {
    JxlDecoder *jxl;
    allocation_budget budget;
    input_feed input;
    mjxl_info info;
    int have_info;
    uint8_t *icc;
    size_t icc_size;
    uint8_t *pixels;
    size_t stride;
    mb_message message;
};

static void *budget_alloc(void *opaque, size_t size) {
    allocation_budget *budget = opaque;
    if (size > budget->budget - budget->used || size > SIZE_MAX - ALLOCATION_HEADER) {
        budget->refused = 1;
        return NULL;
    }
    unsigned char *block = malloc(size + ALLOCATION_HEADER);
    if (block == NULL) {
        budget->refused = 1;
        return NULL;
    }
    memcpy(block, &size, sizeof size);
    budget->used += size;
    if (budget->used > budget->peak) budget->peak = budget->used;
    return block + ALLOCATION_HEADER;
}

static void budget_free(void *opaque, void *address) {
    if (address == NULL) return;
    allocation_budget *budget = opaque;
    unsigned char *block = (unsigned char *)address - ALLOCATION_HEADER;
    size_t size;
    memcpy(&size, block, sizeof size);
    budget->used -= size;
    free(block);
}

/// A libjxl decoder allocating through `budget`, keeping the stored orientation.
static JxlDecoder *create_decoder(allocation_budget *budget, int events) {
    JxlMemoryManager manager = { .opaque = budget, .alloc = budget_alloc, .free = budget_free };
    JxlDecoder *jxl = JxlDecoderCreate(&manager);
    if (jxl == NULL) return NULL;
    if (JxlDecoderSubscribeEvents(jxl, events) != JXL_DEC_SUCCESS
        || JxlDecoderSetKeepOrientation(jxl, JXL_TRUE) != JXL_DEC_SUCCESS) {
        JxlDecoderDestroy(jxl);
        return NULL;
    }
    return jxl;
}

/// Gives libjxl the bytes it has not consumed followed by the next block of the file.
static mb_status feed(JxlDecoder *jxl, input_feed *input, mb_message *message) {
    size_t kept = input->bytes == NULL ? 0 : JxlDecoderReleaseInput(jxl);
    if (input->offset >= input->size) {
        mb_message_set(message, "truncated JPEG XL file");
        return MB_TRUNCATED;
    }
    if (kept > input->count) kept = input->count;
    int64_t left = input->size - input->offset;
    size_t block = left < BLOCK_SIZE ? (size_t)left : BLOCK_SIZE;
    if (kept + block > input->capacity) {
        // libjxl needs a section whole: the block grows to hold it (at most the file's size).
        size_t capacity = input->capacity * 2 > kept + block ? input->capacity * 2 : kept + block;
        uint8_t *bytes = malloc(capacity);
        if (bytes == NULL) {
            mb_message_set(message, "out of memory for the JPEG XL input");
            return MB_LIMIT;
        }
        if (kept > 0) memcpy(bytes, input->bytes + input->count - kept, kept);
        free(input->bytes);
        input->bytes = bytes;
        input->capacity = capacity;
    } else if (kept > 0) {
        memmove(input->bytes, input->bytes + input->count - kept, kept);
    }
    ssize_t got = mb_pread_full(input->fd, input->bytes + kept, block, input->offset);
    if (got < 0) {
        message->error_number = errno;
        mb_message_set(message, "reading the JPEG XL file failed");
        return MB_IO;
    }
    if (got == 0) {
        mb_message_set(message, "truncated JPEG XL file");   // the file shrank after its header was read
        return MB_TRUNCATED;
    }
    input->offset += got;
    input->count = kept + (size_t)got;
    if (JxlDecoderSetInput(jxl, input->bytes, input->count) != JXL_DEC_SUCCESS) {
        mb_message_set(message, "libjxl refused its input");
        return MB_USAGE;
    }
    return MB_OK;
}

/// "corrupt JPEG XL codestream", with the first line libjxl tried to print on this thread.
static void corrupt(mb_message *message) {
    const char *words = libjxl_words();
    if (words[0] != 0) mb_message_set(message, "corrupt JPEG XL codestream (libjxl: %s)", words);
    else mb_message_set(message, "corrupt JPEG XL codestream");
}

/// Runs libjxl until it reports `wanted`, feeding it the file.
static mb_status run_until(JxlDecoder *jxl, input_feed *input, allocation_budget *budget, JxlDecoderStatus wanted,
                           mb_message *message) {
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(jxl);
        if (status == JXL_DEC_NEED_MORE_INPUT) {
            mb_status fed = feed(jxl, input, message);
            if (fed != MB_OK) return fed;
            continue;
        }
        if (status == JXL_DEC_ERROR) {
            if (budget->refused) {
                mb_message_set(message, "JPEG XL image needs more decoding memory than the budget allows");
                return MB_LIMIT;
            }
            corrupt(message);
            return MB_MALFORMED;
        }
        if (status == JXL_DEC_SUCCESS) {
            mb_message_set(message, "JPEG XL file ends before its first frame");
            return MB_MALFORMED;
        }
        if (status == wanted) return MB_OK;
        if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER || status == JXL_DEC_NEED_PREVIEW_OUT_BUFFER
            || status == JXL_DEC_NEED_DC_OUT_BUFFER) {
            mb_message_set(message, "libjxl asked for an output buffer out of turn");
            return MB_USAGE;
        }
        // Another event the decoder subscribed to but this call does not wait for: go on.
    }
}

const char *mjxl_library_failure(void) {
    return libjxl_load_quietly() == MB_OK ? NULL : libjxl_library.failure.text;
}

uint32_t mjxl_version(void) {
    return libjxl_load_quietly() == MB_OK ? JxlDecoderVersion() : 0;
}

mjxl_decoder *mjxl_decoder_create(int fd, int64_t size, uint64_t memory_budget) {
    if (libjxl_load_quietly() != MB_OK) return NULL;
    mjxl_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->budget.budget = memory_budget;
    d->input.fd = fd;
    d->input.size = size;
    d->jxl = create_decoder(&d->budget, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE);
    if (d->jxl == NULL) {
        free(d);
        return NULL;
    }
    return d;
}

void mjxl_decoder_destroy(mjxl_decoder *d) {
    if (d == NULL) return;
    JxlDecoderDestroy(d->jxl);
    free(d->input.bytes);
    free(d->icc);
    free(d->pixels);
    free(d);
}

/// libjxl's basic info into `info`.
static void copy_info(const JxlBasicInfo *basic, mjxl_info *info) {
    info->width = basic->xsize;
    info->height = basic->ysize;
    info->bits_per_sample = basic->bits_per_sample;
    info->color_channels = basic->num_color_channels;
    info->alpha_bits = basic->alpha_bits;
    info->orientation = (uint32_t)basic->orientation;
    info->have_preview = basic->have_preview ? 1 : 0;
    info->have_animation = basic->have_animation ? 1 : 0;
    info->xyb = basic->uses_original_profile ? 0 : 1;
}

mb_status mjxl_decoder_read_info(mjxl_decoder *d, mjxl_info *info) {
    if (d->have_info) return MB_USAGE;
    libjxl_words_clear();
    mb_status status = run_until(d->jxl, &d->input, &d->budget, JXL_DEC_BASIC_INFO, &d->message);
    if (status != MB_OK) return status;
    JxlBasicInfo basic;
    if (JxlDecoderGetBasicInfo(d->jxl, &basic) != JXL_DEC_SUCCESS) {
        mb_message_set(&d->message, "libjxl gave no basic info");
        return MB_MALFORMED;
    }
    copy_info(&basic, &d->info);
    status = run_until(d->jxl, &d->input, &d->budget, JXL_DEC_COLOR_ENCODING, &d->message);
    if (status != MB_OK) return status;
    JxlColorEncoding encoding;
    int is_enum = JxlDecoderGetColorAsEncodedProfile(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &encoding)
        == JXL_DEC_SUCCESS;
    d->info.original_is_icc = is_enum ? 0 : 1;
    if (d->info.xyb) {
        // libjxl converts XYB to any enum encoding: sRGB, which every viewer assumes.
        JxlColorEncoding srgb = {
            .color_space = d->info.color_channels == 1 ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB,
            .white_point = JXL_WHITE_POINT_D65,
            .primaries = JXL_PRIMARIES_SRGB,
            .transfer_function = JXL_TRANSFER_FUNCTION_SRGB,
            .rendering_intent = JXL_RENDERING_INTENT_RELATIVE,
        };
        if (JxlDecoderSetPreferredColorProfile(d->jxl, &srgb) != JXL_DEC_SUCCESS) {
            mb_message_set(&d->message, "libjxl cannot decode this XYB image to sRGB");
            return MB_UNSUPPORTED;
        }
    } else if (!is_enum) {
        size_t size = 0;
        if (JxlDecoderGetICCProfileSize(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &size) != JXL_DEC_SUCCESS
            || size == 0) {
            mb_message_set(&d->message, "corrupt JPEG XL ICC profile");
            return MB_MALFORMED;
        }
        if (size > MAX_ICC_SIZE) {
            mb_message_set(&d->message, "JPEG XL ICC profile over 4 MiB");
            return MB_LIMIT;
        }
        d->icc = malloc(size);
        if (d->icc == NULL) return MB_LIMIT;
        if (JxlDecoderGetColorAsICCProfile(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL, d->icc, size) != JXL_DEC_SUCCESS) {
            mb_message_set(&d->message, "corrupt JPEG XL ICC profile");
            return MB_MALFORMED;
        }
        d->icc_size = size;
    }
    d->have_info = 1;
    *info = d->info;
    return MB_OK;
}

const uint8_t *mjxl_decoder_icc(const mjxl_decoder *d, size_t *size) {
    *size = d->icc_size;
    return d->icc;
}

mb_status mjxl_decoder_decode(mjxl_decoder *d, int channels) {
    if (!d->have_info || d->pixels != NULL || channels < 1 || channels > 4) return MB_USAGE;
    libjxl_words_clear();
    JxlPixelFormat format = { .num_channels = (uint32_t)channels, .data_type = JXL_TYPE_UINT8,
                              .endianness = JXL_NATIVE_ENDIAN, .align = 0 };
    mb_status status = run_until(d->jxl, &d->input, &d->budget, JXL_DEC_NEED_IMAGE_OUT_BUFFER, &d->message);
    if (status != MB_OK) return status;
    size_t size = 0;
    if (JxlDecoderImageOutBufferSize(d->jxl, &format, &size) != JXL_DEC_SUCCESS
        || size != (size_t)d->info.width * d->info.height * (size_t)channels) {
        mb_message_set(&d->message, "libjxl's output size does not match the image header");
        return MB_MALFORMED;
    }
    d->pixels = malloc(size > 0 ? size : 1);
    if (d->pixels == NULL) return MB_LIMIT;
    d->stride = (size_t)d->info.width * (size_t)channels;
    if (JxlDecoderSetImageOutBuffer(d->jxl, &format, d->pixels, size) != JXL_DEC_SUCCESS) {
        mb_message_set(&d->message, "libjxl refused the output buffer");
        return MB_USAGE;
    }
    return run_until(d->jxl, &d->input, &d->budget, JXL_DEC_FULL_IMAGE, &d->message);
}

const uint8_t *mjxl_decoder_row(const mjxl_decoder *d, uint32_t y) {
    if (d->pixels == NULL || y >= d->info.height) return NULL;
    return d->pixels + (size_t)y * d->stride;
}

uint64_t mjxl_decoder_peak_bytes(const mjxl_decoder *d) { return d->budget.peak; }

const mb_message *mjxl_decoder_message(const mjxl_decoder *d) { return &d->message; }

mb_status mjxl_count_frames(int fd, int64_t size, uint64_t memory_budget, uint32_t max_frames,
                            uint32_t *frames, mb_message *message) {
    *frames = 0;
    if (libjxl_load_quietly() != MB_OK) {
        mb_message_set(message, "%s", libjxl_library.failure.text);
        return MB_UNSUPPORTED;
    }
    libjxl_words_clear();
    allocation_budget budget = { .budget = memory_budget };
    input_feed input = { .fd = fd, .size = size };
    JxlDecoder *jxl = create_decoder(&budget, JXL_DEC_FRAME);
    if (jxl == NULL) return MB_LIMIT;
    mb_status status = MB_OK;
    for (;;) {
        JxlDecoderStatus event = JxlDecoderProcessInput(jxl);
        if (event == JXL_DEC_SUCCESS) break;
        if (event == JXL_DEC_FRAME) {
            if (++*frames > max_frames) {
                mb_message_set(message, "JPEG XL animation of more than %u frames", max_frames);
                status = MB_LIMIT;
                break;
            }
            continue;
        }
        if (event == JXL_DEC_NEED_MORE_INPUT) {
            status = feed(jxl, &input, message);
            if (status != MB_OK) break;
            continue;
        }
        if (budget.refused) {
            mb_message_set(message, "JPEG XL image needs more decoding memory than the budget allows");
            status = MB_LIMIT;
        } else {
            corrupt(message);
            status = MB_MALFORMED;
        }
        break;
    }
    JxlDecoderDestroy(jxl);
    free(input.bytes);
    return status;
}

mb_status mjxl_floor_decode(int fd, int64_t size, uint64_t *pixels, mb_message *message) {
    *pixels = 0;
    mjxl_decoder *d = mjxl_decoder_create(fd, size, UINT64_MAX);
    if (d == NULL) {
        mb_message_set(message, "libjxl could not be loaded or out of memory");
        return MB_UNSUPPORTED;
    }
    mjxl_info info;
    mb_status status = mjxl_decoder_read_info(d, &info);
    if (status == MB_OK) status = mjxl_decoder_decode(d, 4);
    if (status == MB_OK) *pixels = (uint64_t)info.width * info.height;
    else mb_message_set(message, "%s", d->message.text);
    mjxl_decoder_destroy(d);
    return status;
}
