// The system zlib (zlib1g-dev): inflate for gzip and deflate content codings.
#include <zlib.h>
