#include "bridge_support.h"

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
