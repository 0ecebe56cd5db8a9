// libnghttp2's public header; the module map exposes it to Swift as CNGHTTP2 (the HTTP/2
// framing, HPACK and flow control under the gRPC ext_authz listener, Sources/GRPCServer).
// Nothing else: the callbacks and the session loop are Swift.
#include <nghttp2/nghttp2.h>
