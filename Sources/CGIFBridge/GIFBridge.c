// See GIFBridge.h: every giflib call of Masonry.

#include "GIFBridge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gif_lib.h>

enum { MESSAGE_CAPACITY = 200 };

struct mgif_decoder {
    int fd;
    off_t offset;            // of the byte after the buffer's
    uint8_t buffer[1 << 16]; // giflib asks for a sub-block (1 + up to 255 bytes) at a time
    size_t buffered;         // bytes in buffer
    size_t position;         // next byte giflib gets
    GifFileType *gif;
    uint32_t lines_left;     // of the first frame
    int reached_end;         // a read came back short: the file ended
    int read_errno;          // a read failed with this errno
    int stage;               // 0 created, 1 open, -1 failed
    char text[MESSAGE_CAPACITY];
};

/// giflib's input function: serves giflib's small reads (a length byte, then a sub-block)
/// from a 64 KiB buffer refilled with pread. A short count tells giflib the file ended; the
/// decoder remembers why (end of file or a failed read).
static int read_input(GifFileType *gif, GifByteType *target, int count) {
    mgif_decoder *d = gif->UserData;
    int total = 0;
    while (total < count) {
        if (d->position == d->buffered) {
            ssize_t got = mb_pread_full(d->fd, d->buffer, sizeof d->buffer, d->offset);
            if (got < 0) {
                d->read_errno = errno;
                break;
            }
            if (got == 0) {
                d->reached_end = 1;
                break;
            }
            d->offset += got;
            d->buffered = (size_t)got;
            d->position = 0;
        }
        size_t taken = d->buffered - d->position;
        if (taken > (size_t)(count - total)) taken = (size_t)(count - total);
        memcpy(target + total, d->buffer + d->position, taken);
        d->position += taken;
        total += (int)taken;
    }
    return total;
}

#define MGIF_STRING(x) #x
#define MGIF_VERSION(major, minor, release) MGIF_STRING(major) "." MGIF_STRING(minor) "." MGIF_STRING(release)

const char *mgif_library_version(void) { return MGIF_VERSION(GIFLIB_MAJOR, GIFLIB_MINOR, GIFLIB_RELEASE); }

mgif_decoder *mgif_decoder_create_fd(int fd) {
    mgif_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->fd = fd;
    return d;
}

void mgif_decoder_destroy(mgif_decoder *d) {
    if (d == NULL) return;
    if (d->gif != NULL) {
        int ignored;
        DGifCloseFile(d->gif, &ignored);   // frees everything, even after an error
    }
    free(d);
}

const char *mgif_decoder_message(const mgif_decoder *d) { return d->text; }

/// The status and text for giflib's error `code`: a failed or short read says why the
/// bytes ran out, everything else is giflib's words.
static mb_status failed(mgif_decoder *d, int code) {
    d->stage = -1;
    if (d->read_errno != 0) {
        snprintf(d->text, sizeof d->text, "read failed: %s", strerror(d->read_errno));
        return MB_IO;
    }
    if (d->reached_end) {
        snprintf(d->text, sizeof d->text, "the file ends early");
        return MB_TRUNCATED;
    }
    const char *words = GifErrorString(code);
    snprintf(d->text, sizeof d->text, "%s", words != NULL ? words : "unknown giflib error");
    return code == D_GIF_ERR_NOT_ENOUGH_MEM ? MB_LIMIT : MB_MALFORMED;
}

static mb_status usage(mgif_decoder *d, const char *text) {
    snprintf(d->text, sizeof d->text, "%s", text);
    return MB_USAGE;
}

/// Reads one extension's sub-blocks to its terminator; a graphic control extension whose
/// transparency flag is set (its first block at least 4 bytes) sets the transparency index,
/// as Pillow reads it (a later one without the flag does not clear it).
static int skip_extension(mgif_decoder *d, mgif_first_frame *frame) {
    int code;
    GifByteType *block;
    if (DGifGetExtension(d->gif, &code, &block) == GIF_ERROR) return GIF_ERROR;
    if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL && block[0] >= 4) {
        if (block[1] & 1) frame->transparent_index = block[4];
    }
    while (block != NULL) {
        if (DGifGetExtensionNext(d->gif, &block) == GIF_ERROR) return GIF_ERROR;
    }
    return GIF_OK;
}

mb_status mgif_decoder_open(mgif_decoder *d, mgif_first_frame *frame) {
    if (d->stage != 0) return usage(d, "open comes once");
    memset(frame, 0, sizeof *frame);
    frame->transparent_index = -1;
    int code = 0;
    d->gif = DGifOpen(d, read_input, &code);
    if (d->gif == NULL) return failed(d, code);
    GifFileType *gif = d->gif;
    frame->screen_width = (uint32_t)gif->SWidth;
    frame->screen_height = (uint32_t)gif->SHeight;
    frame->background_index = gif->SBackGroundColor;
    for (;;) {
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) return failed(d, gif->Error);
        if (record == EXTENSION_RECORD_TYPE) {
            if (skip_extension(d, frame) == GIF_ERROR) return failed(d, gif->Error);
        } else if (record == IMAGE_DESC_RECORD_TYPE) {
            break;
        } else {
            snprintf(d->text, sizeof d->text, "no image before the trailer");
            d->stage = -1;
            return MB_MALFORMED;
        }
    }
    if (DGifGetImageDesc(gif) == GIF_ERROR) return failed(d, gif->Error);
    GifImageDesc *image = &gif->Image;
    frame->left = (uint32_t)image->Left;
    frame->top = (uint32_t)image->Top;
    frame->width = (uint32_t)image->Width;
    frame->height = (uint32_t)image->Height;
    frame->interlaced = image->Interlace ? 1 : 0;
    ColorMapObject *map = image->ColorMap != NULL ? image->ColorMap : gif->SColorMap;
    if (map != NULL) {
        int count = map->ColorCount < 256 ? map->ColorCount : 256;
        frame->color_count = count;
        for (int i = 0; i < count; i++) {
            frame->palette[3 * i] = map->Colors[i].Red;
            frame->palette[3 * i + 1] = map->Colors[i].Green;
            frame->palette[3 * i + 2] = map->Colors[i].Blue;
        }
    }
    d->lines_left = frame->height;
    d->stage = 1;
    return MB_OK;
}

mb_status mgif_decoder_read_line(mgif_decoder *d, uint8_t *indices) {
    if (d->stage != 1) return usage(d, "read_line needs an open decoder");
    if (d->lines_left == 0) return usage(d, "every line was already read");
    if (DGifGetLine(d->gif, indices, d->gif->Image.Width) == GIF_ERROR) return failed(d, d->gif->Error);
    d->lines_left--;
    return MB_OK;
}
