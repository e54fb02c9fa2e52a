// The system brotli encoder, for tests only: they compress fixtures in process.
#include <brotli/encode.h>
