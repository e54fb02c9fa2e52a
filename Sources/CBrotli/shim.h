// The system brotli decoder (libbrotli-dev) for the br content coding.
#include <brotli/decode.h>
