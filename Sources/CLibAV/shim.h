// FFmpeg 5.1 from Debian (libavformat-dev, libavcodec-dev, libswscale-dev, libavutil-dev): its
// headers only. Nothing links it (no pkg-config): CVideoBridge loads libavformat.so.59 and
// libswscale.so.6 on the first video file (issue #30), and only it includes these headers.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
