// The system libpsl (libpsl-dev): the Public Suffix List, built in and from the publicsuffix package's
// file, for rejecting cookies set on public suffixes such as co.uk or github.io (RFC 6265bis §5.7).
#include <libpsl.h>
