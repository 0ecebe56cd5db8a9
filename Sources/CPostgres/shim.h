// libpq's public header; the module map exposes it to Swift as CPostgres.
// The include path comes from pkg-config (libpq: -I/usr/include/postgresql on Debian).
#include <libpq-fe.h>
