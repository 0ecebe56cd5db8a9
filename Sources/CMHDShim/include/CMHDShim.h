// Non-variadic wrappers around libmicrohttpd for Swift.
//
// Swift cannot call C variadic functions (MHD_start_daemon, MHD_get_*_info) and cannot
// format a va_list portably, so these few entry points live in C. Keep this file tiny:
// all policy belongs in Swift.
#ifndef CMHDSHIM_H
#define CMHDSHIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon with the given option array (terminated by MHD_OPTION_END).
/// Port is 0 because the listen socket is always passed via MHD_OPTION_LISTEN_SOCKET.
/// `accept_policy` (may be NULL) sees each accepted peer address before MHD sets the
/// connection up and can refuse it.
struct MHD_Daemon *cmhd_start_daemon(unsigned int flags, MHD_AcceptPolicyCallback accept_policy,
                                     void *accept_policy_context, MHD_AccessHandlerCallback handler,
                                     void *handler_context, const struct MHD_OptionItem *options);

/// Copies the raw address of `address` into `bytes`: 4 bytes for IPv4 (returns 4), 16 for
/// IPv6 (returns 6); returns 0 for NULL or any other family.
int cmhd_address_bytes(const struct sockaddr *address, uint8_t bytes[16]);

/// cmhd_address_bytes for a connection's peer (MHD_CONNECTION_INFO_CLIENT_ADDRESS).
int cmhd_connection_address_bytes(struct MHD_Connection *connection, uint8_t bytes[16]);

/// Number of connections the daemon currently holds (MHD_DAEMON_INFO_CURRENT_CONNECTIONS).
unsigned int cmhd_current_connections(struct MHD_Daemon *daemon);

/// The socket of a connection (MHD_CONNECTION_INFO_CONNECTION_FD), or -1.
int cmhd_connection_fd(struct MHD_Connection *connection);

/// The per-socket pointer set in MHD_OPTION_NOTIFY_CONNECTION (MHD_CONNECTION_INFO_SOCKET_CONTEXT).
void *cmhd_socket_context(struct MHD_Connection *connection);

/// Bytes of the request line and header section including the final empty line
/// (MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE); 0 while the head is still being received.
size_t cmhd_request_header_size(struct MHD_Connection *connection);

/// The status of the response queued on a connection (MHD_CONNECTION_INFO_HTTP_STATUS), or 0.
unsigned int cmhd_queued_status(struct MHD_Connection *connection);

/// Writes the peer address of a connection as text ("192.0.2.1", "::1") into buffer.
/// Returns 0 on success, -1 when the address is unknown or not IP.
int cmhd_client_address(struct MHD_Connection *connection, char *buffer, size_t buffer_size);

/// Called from the URI-log callback: this thread is now parsing the request line of the
/// connection `owner` stands for (its socket context); `uri` is the pointer MHD passed.
/// Does nothing useful when uri is NULL (MHD then never unescapes a path to end it).
void cmhd_request_line_started(void *owner, const char *uri);

/// The owner given to cmhd_request_line_started while this thread is still inside that
/// request line (between the URI-log callback and the path's unescaping), else NULL.
void *cmhd_request_line_owner(void);

/// MHD_OPTION_UNESCAPE_CALLBACK: MHD_http_unescape (what MHD does by default), and the end
/// of the request line cmhd_request_line_started began.
size_t cmhd_unescape(void *context, struct MHD_Connection *connection, char *text);

/// Receives one formatted libmicrohttpd log line.
typedef void (*cmhd_log_sink)(void *context, const char *message);

/// The context MHD_OPTION_EXTERNAL_LOGGER hands to cmhd_format_log: where lines go.
struct cmhd_log_target {
    cmhd_log_sink sink;
    void *context;
};

/// An MHD_LogCallback that formats with vsnprintf and forwards to a cmhd_log_target.
void cmhd_format_log(void *target, const char *format, va_list arguments);

/// cmhd_format_log as an MHD_LogCallback value (Swift cannot form a C function pointer
/// to a function taking va_list).
MHD_LogCallback cmhd_format_log_callback(void);

/// Outcome codes of cmhd_open_listen_socket besides a valid descriptor.
enum {
    CMHD_LISTEN_INVALID_ADDRESS = -1,  /* host is not an IPv4 or IPv6 literal */
    CMHD_LISTEN_SYSTEM_ERROR = -2      /* socket/bind/listen failed; see *error_number */
};

/// Creates a non-blocking TCP listen socket bound to host:port (host is an IP literal).
/// Binding here instead of inside MHD lets the caller report EADDRINUSE precisely and
/// learn the ephemeral port. Returns the descriptor, or a CMHD_LISTEN_* code.
int cmhd_open_listen_socket(const char *host, uint16_t port, int backlog,
                            uint16_t *bound_port, int *error_number);

/// Checks that fd is a listening IPv4/IPv6 TCP socket (one passed by socket activation),
/// writes its port, and makes it non-blocking and close-on-exec. Returns 0, or -1 with
/// *error_number set (0 when the descriptor is valid but not a listening TCP socket).
int cmhd_inspect_listen_socket(int fd, uint16_t *bound_port, int *error_number);

/// Makes the kernel refuse new connections on a listening socket at once, keeping the
/// descriptor open (see listen_socket.c). Returns shutdown(2)'s result.
int cmhd_refuse_new_connections(int fd);

#endif
