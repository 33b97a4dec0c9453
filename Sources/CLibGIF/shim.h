// The system giflib (Debian: libgif-dev). giflib ships no pkg-config file, so the module map
// links `gif` by name. Only CGIFBridge includes it: every giflib call and its error codes stay
// in C, and no giflib type crosses into Swift.
#include <gif_lib.h>
