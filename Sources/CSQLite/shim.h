// SQLite's public header; the module map exposes it to Swift as CSQLite.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: bind calls that copy use this.
static inline void (*csqlite_transient(void))(void *) { return (void (*)(void *))-1; }
