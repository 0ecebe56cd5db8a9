#include "CMHDShim.h"

#include <CSockets.h>

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

struct MHD_Daemon *cmhd_start_daemon(unsigned int flags, MHD_AcceptPolicyCallback accept_policy,
                                     void *accept_policy_context, MHD_AccessHandlerCallback handler,
                                     void *handler_context, const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, 0, accept_policy, accept_policy_context, handler, handler_context,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

int cmhd_connection_address_bytes(struct MHD_Connection *connection, uint8_t bytes[16]) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? 0 : csock_address_bytes(info->client_addr, bytes);
}

unsigned int cmhd_current_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

void *cmhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

size_t cmhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

unsigned int cmhd_queued_status(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
    return info == NULL ? 0 : info->http_status;
}

int cmhd_client_address(struct MHD_Connection *connection, char *buffer, size_t buffer_size) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || buffer_size == 0) return -1;
    uint8_t bytes[16];
    int version = csock_address_bytes(info->client_addr, bytes);
    return csock_address_text(version, bytes, buffer, buffer_size);
}

void cmhd_format_log(void *target, const char *format, va_list arguments) {
    const struct cmhd_log_target *destination = target;
    if (destination == NULL || destination->sink == NULL) return;
    char line[1024];  /* MHD messages are one short line; longer ones are truncated */
    vsnprintf(line, sizeof line, format, arguments);
    destination->sink(destination->context, line);
}

MHD_LogCallback cmhd_format_log_callback(void) {
    return &cmhd_format_log;
}
