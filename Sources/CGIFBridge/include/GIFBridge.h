#ifndef MASONRY_GIF_BRIDGE_H
#define MASONRY_GIF_BRIDGE_H

// The only code in Masonry that calls giflib.
//
// giflib never prints and never jumps; it returns GIF_ERROR and leaves a code in the file
// object. The bridge turns those codes into statuses and keeps giflib's text
// (GifErrorString) in the decoder. Reads go through a callback that uses pread on the
// descriptor, so the descriptor's offset is never used. Only the first frame is read, record
// by record (DGifGetRecordType, DGifGetImageDesc, DGifGetLine; never DGifSlurp). No giflib
// type crosses this header.

#include <stddef.h>
#include <stdint.h>

#include "bridge_support.h"

/// Outcome of a bridge call. The message text is available from the decoder.

/// The logical screen and the first frame, as giflib read them.
typedef struct {
    uint32_t screen_width;    ///< as the file claims (may be 0, or smaller than the frame)
    uint32_t screen_height;
    uint32_t left;            ///< the first frame's place and size on the screen
    uint32_t top;
    uint32_t width;
    uint32_t height;
    int interlaced;
    int color_count;          ///< entries of the frame's palette (local over global); 0 when none
    uint8_t palette[256 * 3]; ///< RGB triples, color_count of them
    int background_index;     ///< the screen's background colour index
    int transparent_index;    ///< from the last graphic control extension before the frame; -1 when none
} mgif_first_frame;

typedef struct mgif_decoder mgif_decoder;

/// The giflib this bridge was built against, "MAJOR.MINOR.RELEASE" (giflib has no run-time
/// version call; Debian rebuilds the bridge with the library).
const char *mgif_library_version(void);

/// A decoder reading an open file descriptor from offset 0 with pread (the descriptor is
/// not closed). NULL without memory.
mgif_decoder *mgif_decoder_create_fd(int fd);
void mgif_decoder_destroy(mgif_decoder *decoder);
/// The last error's text (empty when none). Owned by the decoder.
const char *mgif_decoder_message(const mgif_decoder *decoder);

/// Reads the screen descriptor, the global colour table and every record up to the first
/// image descriptor (extensions are read and skipped; the last graphic control extension
/// gives the transparency index), then that descriptor and its local colour table.
mb_status mgif_decoder_open(mgif_decoder *decoder, mgif_first_frame *frame);
/// Decodes the next line of the first frame, in stored order (interlaced frames give their
/// lines pass by pass): frame->width palette indices.
mb_status mgif_decoder_read_line(mgif_decoder *decoder, uint8_t *indices);

#endif
