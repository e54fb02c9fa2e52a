// glibc's malloc tuning (mallopt), which the Glibc module does not export: the command keeps
// freed memory instead of trimming each thread's heap (see SwgetCommand.run).
#include <malloc.h>
