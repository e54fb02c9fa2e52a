// The system libidn2 (libidn2-dev): IDNA 2008 / UTS #46 host names, as curl and wget2 use it.
#include <idn2.h>
