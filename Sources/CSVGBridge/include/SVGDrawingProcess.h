#ifndef MASONRY_SVG_DRAWING_PROCESS_H
#define MASONRY_SVG_DRAWING_PROCESS_H

// librsvg in a child process, so a drawing can be stopped (issue #31 §1: librsvg 2.54 cannot be
// interrupted in process). A drawing takes an idle drawing process, or has one started (by one
// thread that lives as long as the process), so there are as many as drawings at once, reused
// from one SVG and one page to the next; one is killed (SIGKILL) when a drawing passes its
// deadline, and replaced when it ends by a signal. It draws under an address-space bound
// (RLIMIT_AS) set for each request, and serves requests on its socket until the socket closes.
//
// Drawing processes are forked by a zygote: the command's own executable started once with the
// one argument MSVG_ZYGOTE_ARGUMENT, its end of a socket pair as standard input, /dev/null as
// standard output and error, and no other descriptor. The zygote loads librsvg and draws a small
// document once (librsvg's, GLib's and cairo's first-use set-up), then, while it runs one thread
// only, forks a drawing process on each request, whose socket is its standard input (nothing else
// of the zygote's is open), and sends the other end back; it kills one when asked, reaps them and
// reports how each ended. Had the zygote not started, could it not fork, or did it not answer
// within 10 s (it is then killed), the drawing process is the executable started with
// MSVG_PROCESS_ARGUMENT instead, as the zygote is. Every process
// dies with its parent (PR_SET_PDEATHSIG: the zygote with the command's thread that started it,
// a drawing process with the zygote); the exit closes the zygote's socket, the zygote then ends
// its drawing processes and reaps them, and the command reaps the zygote.
//
// A request is the bytes Masonry read and checked (SVGHeader, SVGDocumentScan run in the parent)
// and the size to draw; the reply is msvg_document_load's and msvg_document_render's result:
// librsvg's reading of the root, the status and words, and the rows. The child opens no file.

#include <stddef.h>
#include <stdint.h>

#include "SVGBridge.h"

/// The hidden argument that makes the executable a drawing process (never shown to users).
#define MSVG_PROCESS_ARGUMENT "--internal-svg-drawing-process"

/// The hidden argument that makes the executable the zygote of drawing processes.
#define MSVG_ZYGOTE_ARGUMENT "--internal-svg-drawing-zygote"

/// The child's main: serves requests on standard input until it closes. Returns the exit status.
int msvg_process_serve(void);

/// The zygote's main: forks drawing processes on the requests on standard input until it
/// closes, then ends them. Returns the exit status.
int msvg_zygote_serve(void);

/// Makes `executable` the one SVGDecoder draws through (the command calls it once, before any
/// worker starts; `executable` is kept, not copied). Without it SVGDecoder draws in process.
void msvg_process_use(const char *executable);

/// The executable given to msvg_process_use, or NULL: SVGs are drawn in this process.
const char *msvg_process_executable(void);

/// Loads and draws `count` bytes of SVG in an idle child (or a new child of `executable`: one
/// process holds the children of one executable), as msvg_document_load then msvg_document_render do, within `deadline_seconds` and an
/// address space (RLIMIT_AS) of `memory_bytes`. `intrinsic` gets
/// librsvg's reading of the root; `rgba` width × height × 4 bytes. Returns the child's status and
/// words; MB_LIMIT with "drawing the SVG took longer than N s" when the deadline passed;
/// MB_MALFORMED with "librsvg ended by signal N (NAME) while drawing the SVG" when the child
/// died; MB_UNSUPPORTED when no child could be started.
mb_status msvg_process_draw(const char *executable, const uint8_t *bytes, size_t count, double natural_width, double natural_height,
                            uint32_t width, uint32_t height, uint32_t deadline_seconds, uint64_t memory_bytes,
                            msvg_intrinsic *intrinsic, uint8_t *rgba, mb_message *message);

#endif
