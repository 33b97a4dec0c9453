#ifndef CFILEAT_H
#define CFILEAT_H
#include <sys/types.h>

/// openat(2) with its mode argument spelled out: Swift cannot call the variadic libc function.
int masonry_openat(int directory, const char *name, int flags, mode_t mode);

#endif
