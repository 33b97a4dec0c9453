#ifndef MASONRY_BRIDGE_SUPPORT_H
#define MASONRY_BRIDGE_SUPPORT_H
// What every C bridge shares (issue #35): one status enum, mapped to Swift's ImageError in one
// place (CodecCore's BridgeStatus.swift); positioned reads with one EINTR/short-read policy; and
// the buffer a library's message is captured into instead of being printed.
//
// A bridge returns an mb_status from every call that can fail and keeps the words of the
// failure in its mb_message. It never prints, never opens a file (it is handed Masonry's
// descriptor), and every setjmp/longjmp stays inside its own C frames.

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Whose fault a failure is; the same numbers in every bridge.
typedef enum {
    MB_OK = 0,
    MB_MALFORMED = 1,     ///< the bytes break the format (the library's verdict)
    MB_TRUNCATED = 2,     ///< the file ended where the library needed more bytes
    MB_LIMIT = 3,         ///< over a size limit given to the bridge, or out of memory
    MB_IO = 4,            ///< reading the descriptor failed (see mb_message.error_number)
    MB_UNSUPPORTED = 5,   ///< valid, but a feature or codec this library build does not read
    MB_USAGE = 6          ///< the caller broke the bridge's contract (a bug)
} mb_status;

/// The words of the last failure (or warning), NUL-terminated, cut at the buffer's end.
typedef struct {
    char text[256];
    int error_number;     ///< errno of a failed read (MB_IO), else 0
} mb_message;

/// Reads `count` bytes at `offset` with pread(2): retries EINTR and short reads until `count`
/// bytes or the end of the file. Returns the bytes read (fewer than `count` only at the end),
/// or -1 with errno set when a read fails. The descriptor's own offset is never used.
ssize_t mb_pread_full(int fd, void *buffer, size_t count, int64_t offset);

/// Sets `message` from a printf format (first failure wins: a later call does nothing while
/// `message->text` is not empty, so the cause is not overwritten by its consequences).
void mb_message_set(mb_message *message, const char *format, ...) __attribute__((format(printf, 2, 3)));

/// Empties `message`.
void mb_message_clear(mb_message *message);

/// A decoding library a bridge loads on its first use, by soname, instead of linking it: a run
/// pays for a format's library (its own dependencies too: libheif brings four video codecs) only
/// when it reads a file of that format (issue #34). The bridge declares one with its soname and
/// a function that resolves its symbols, and calls mb_library_load at each of its entry points.
typedef struct mb_library {
    const char *soname;               ///< "libheif.so.1": the ABI the bridge was written against
    /// Resolves every function the bridge calls (with mb_library_symbol); returns MB_OK, or
    /// MB_UNSUPPORTED when one is missing (mb_library_symbol has set the message).
    mb_status (*resolve)(struct mb_library *library);
    pthread_once_t once;
    mb_status status;                 ///< after the first load: MB_OK or MB_UNSUPPORTED
    void *handle;
    mb_message failure;               ///< why the library could not be loaded (empty when it was)
} mb_library;

/// A library not loaded yet; `resolve` fills in the bridge's function table.
#define MB_LIBRARY(soname_, resolve_) { .soname = (soname_), .resolve = (resolve_), .once = PTHREAD_ONCE_INIT }

/// Loads `library` once (dlopen with RTLD_NOW | RTLD_LOCAL, then its `resolve`), whatever the
/// number of threads that ask; later calls return the first answer. MB_OK, or MB_UNSUPPORTED
/// with `library->failure` saying which library or symbol is missing.
mb_status mb_library_load(mb_library *library);

/// The address of `name` in the opened library, or NULL with `library->failure` set.
void *mb_library_symbol(mb_library *library, const char *name);

// A bridge's library in three macros, over its X-macro list of functions (`LIST(X)` calls
// `X(name)` for each function the bridge calls):
//   in its header   MB_DECLARE_LIBRARY(prefix, LIST(MB_FUNCTION_POINTER)), then one
//                   `#define name prefix_functions.name` a function, so calls keep their names;
//   in one C file   #define RESOLVE(name) MB_RESOLVE_FUNCTION(prefix_functions, name)
//                   MB_DEFINE_LIBRARY(prefix, "soname", LIST(RESOLVE))
// and `prefix_library_load()` at each entry point of the bridge.

/// One member of a bridge's table: a pointer of the function's own type.
#define MB_FUNCTION_POINTER(name) __typeof__(name) *name;

/// The table `prefix_functions`, the library `prefix_library`, and `prefix_library_load()`.
#define MB_DECLARE_LIBRARY(prefix, POINTERS) \
    struct prefix##_library_functions { POINTERS }; \
    extern struct prefix##_library_functions prefix##_functions; \
    extern mb_library prefix##_library; \
    static inline mb_status prefix##_library_load(void) { return mb_library_load(&prefix##_library); }

/// Resolves one function into `table` inside MB_DEFINE_LIBRARY's resolver.
#define MB_RESOLVE_FUNCTION(table, name) \
    if (((table).name = (__typeof__((table).name))mb_library_symbol(library, #name)) == NULL) return MB_UNSUPPORTED;

/// Defines what MB_DECLARE_LIBRARY declared: the table, a resolver running `RESOLVE_ALL`, and
/// the library of `soname`.
#define MB_DEFINE_LIBRARY(prefix, soname, RESOLVE_ALL) \
    struct prefix##_library_functions prefix##_functions; \
    static mb_status resolve_##prefix##_functions(mb_library *library) { RESOLVE_ALL return MB_OK; } \
    mb_library prefix##_library = MB_LIBRARY(soname, resolve_##prefix##_functions);

#ifdef __cplusplus
}
#endif

#endif
