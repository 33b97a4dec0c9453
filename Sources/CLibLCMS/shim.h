// Little CMS 2 from Debian (liblcms2-dev), found through pkg-config.
// Only CColorBridge includes it: every lcms call, its context and its error handler live there.
#include <lcms2.h>
