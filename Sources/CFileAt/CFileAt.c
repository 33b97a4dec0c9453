#include "CFileAt.h"
#include <fcntl.h>

int masonry_openat(int directory, const char *name, int flags, mode_t mode) {
    return openat(directory, name, flags, mode);
}
