#include "CMHDShim.h"

/* The request line this worker thread is parsing, from the URI-log callback until MHD
 * unescapes the path. MHD does both synchronously in parse_initial_message_line, with the
 * query parameters parsed into the connection's pool in between, so a pool overflow logged
 * while this is set belongs to this connection and no other. Thread-local: each worker
 * thread parses only its own connections. */
static __thread void *request_line_owner;
static __thread const char *request_line_uri;

void cmhd_request_line_started(void *owner, const char *uri) {
    request_line_owner = uri == NULL ? NULL : owner;
    request_line_uri = uri;
}

void *cmhd_request_line_owner(void) {
    return request_line_owner;
}

size_t cmhd_unescape(void *context, struct MHD_Connection *connection, char *text) {
    (void)context;
    (void)connection;
    /* MHD unescapes every query key and value first, then the path itself: the same
     * pointer the URI-log callback received. After that the request line is done. */
    if (text == request_line_uri) {
        request_line_owner = NULL;
        request_line_uri = NULL;
    }
    return MHD_http_unescape(text);
}
