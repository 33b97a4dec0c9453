// The system GNU FriBidi (Debian: libfribidi-dev), found through pkg-config. Only CBidiBridge
// includes it, so that every FriBidi call of Masonry sits in one small C file.
#include <fribidi.h>
