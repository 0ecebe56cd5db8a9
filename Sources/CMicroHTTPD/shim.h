// Umbrella header for the system libmicrohttpd (Debian: libmicrohttpd-dev, 0.9.75).
// microhttpd.h expects the socket and stdarg types to be declared before it is included.
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

#endif
