// libjxl's decoder API from Debian (libjxl-dev 0.7): its headers only. Only CJXLBridge includes
// them, and it loads libjxl.so.0.7 on the first JPEG XL file instead of linking it.
#include <jxl/decode.h>
