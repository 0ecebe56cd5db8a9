// The socket system calls every listener and the CONNECT tunnel share (the one socket layer:
// docs/architecture.md). In C because Swift's Glibc module does not reliably export
// SOCK_NONBLOCK and SOCK_CLOEXEC (a release build could not find them), hides accept4(2)
// behind _GNU_SOURCE, and cannot cast between the sockaddr structures without ceremony.
// Keep this file tiny: the rules (limits, deadlines, errors) are in Swift (NetworkSockets).
//
// Addresses cross this boundary as raw bytes in network order with their IP version: 4 (four
// bytes) or 6 (sixteen bytes), as ConnectionSharing's ClientSubnet reads them.
#ifndef CSOCKETS_H
#define CSOCKETS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/// Outcome codes of csock_open_listen_socket besides a valid descriptor.
enum {
    CSOCK_INVALID_ADDRESS = -1, /* version is neither 4 nor 6 */
    CSOCK_SYSTEM_ERROR = -2     /* socket/setsockopt/bind/listen/getsockname failed; see *error_number */
};

/// Copies the raw address of `address` into `bytes`: 4 bytes for IPv4 (returns 4), 16 for
/// IPv6 (returns 6); returns 0 for NULL or any other family.
int csock_address_bytes(const struct sockaddr *address, uint8_t bytes[16]);

/// Writes the address (`version` 4 or 6) as text ("192.0.2.1", "::1") into buffer.
/// Returns 0, or -1 for another version or a buffer too small.
int csock_address_text(int version, const uint8_t bytes[16], char *buffer, size_t buffer_size);

/// Creates a close-on-exec TCP listen socket bound to the address (`version` 4 or 6) and
/// `port` (0 picks a free one), with SO_REUSEADDR (a restart must not wait for the previous
/// process's TIME_WAIT sockets) and, for IPv6, IPV6_V6ONLY off ("::" accepts IPv4 too, as
/// operators expect). Non-blocking when `nonblocking` is not 0. Writes the bound port.
/// Returns the descriptor, or a CSOCK_* code (*error_number set for CSOCK_SYSTEM_ERROR).
int csock_open_listen_socket(int version, const uint8_t bytes[16], uint16_t port, int backlog, int nonblocking,
                             uint16_t *bound_port, int *error_number);

/// Checks that fd is a listening IPv4/IPv6 TCP socket (one passed by socket activation),
/// writes its port, makes it close-on-exec and non-blocking or blocking as `nonblocking`
/// says. Returns 0, or -1 with *error_number set (0 when the descriptor is valid but not a
/// listening TCP socket).
int csock_inspect_listen_socket(int fd, int nonblocking, uint16_t *bound_port, int *error_number);

/// Makes the kernel refuse new connections on a listening socket at once, keeping the
/// descriptor open (see sockets.c). Returns shutdown(2)'s result.
int csock_refuse_new_connections(int fd);

/// accept4(2) of one connection, close-on-exec and blocking, with its peer's address written
/// to `bytes` and `*version` (4, 6, or 0 for another family). Returns the descriptor, or -1
/// with errno set.
int csock_accept(int listen_fd, uint8_t bytes[16], int *version);

/// A non-blocking, close-on-exec TCP socket for the address version (4 or 6), or -1.
int csock_stream_socket(int version);

/// Starts connect(2) of `fd` to the address (`version` 4 or 6) and `port`. Returns
/// connect's result (-1 with errno EINPROGRESS on a non-blocking socket still connecting).
int csock_connect(int fd, int version, const uint8_t bytes[16], uint16_t port);

/// Turns Nagle's algorithm off (TCP_NODELAY): the request/response protocols on these
/// sockets write whole messages. Returns setsockopt's result.
int csock_set_no_delay(int fd);

#endif
