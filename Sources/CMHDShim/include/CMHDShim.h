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

/// csock_address_bytes (CSockets) for a connection's peer (MHD_CONNECTION_INFO_CLIENT_ADDRESS):
/// 4 or 6 with the address in `bytes`, 0 when unknown or not IP.
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

#endif
