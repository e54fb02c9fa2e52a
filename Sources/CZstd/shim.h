// The system zstd library (libzstd-dev) for the zstd content coding.
#include <zstd.h>
