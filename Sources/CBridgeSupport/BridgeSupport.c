#include "bridge_support.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

ssize_t mb_pread_full(int fd, void *buffer, size_t count, int64_t offset) {
    size_t done = 0;
    while (done < count) {
        ssize_t got = pread(fd, (char *)buffer + done, count - done, (off_t)(offset + (int64_t)done));
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (got == 0) break;
        done += (size_t)got;
    }
    return (ssize_t)done;
}

void mb_message_set(mb_message *message, const char *format, ...) {
    if (message->text[0] != '\0') return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message->text, sizeof message->text, format, arguments);
    va_end(arguments);
    // One line: a library's trailing newline or an embedded one never reaches a message.
    for (char *c = message->text; *c; c++) {
        if (*c == '\n' || *c == '\r') *c = ' ';
    }
    size_t length = strlen(message->text);
    while (length > 0 && message->text[length - 1] == ' ') message->text[--length] = '\0';
}

void mb_message_clear(mb_message *message) {
    message->text[0] = '\0';
    message->error_number = 0;
}

// Loading is shared by every library; the per-library state lives in the bridge's mb_library.
// pthread_once takes no argument, so the library being loaded is handed over in a thread-local.
static __thread mb_library *library_being_loaded;

static void load_library_being_loaded(void) {
    mb_library *library = library_being_loaded;
    library->handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (library->handle == NULL) {
        const char *reason = dlerror();
        mb_message_set(&library->failure, "%s could not be loaded (%s)", library->soname, reason ? reason : "no reason given");
        library->status = MB_UNSUPPORTED;
        return;
    }
    library->status = library->resolve(library);
}

mb_status mb_library_load(mb_library *library) {
    library_being_loaded = library;
    pthread_once(&library->once, load_library_being_loaded);
    library_being_loaded = NULL;
    return library->status;
}

void *mb_library_symbol(mb_library *library, const char *name) {
    void *address = dlsym(library->handle, name);
    if (address == NULL) mb_message_set(&library->failure, "%s has no %s (a different version?)", library->soname, name);
    return address;
}
