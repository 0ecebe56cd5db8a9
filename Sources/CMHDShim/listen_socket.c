#include "CMHDShim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fail(int fd, int *error_number) {
    *error_number = errno;
    if (fd >= 0) close(fd);
    return CMHD_LISTEN_SYSTEM_ERROR;
}

int cmhd_open_listen_socket(const char *host, uint16_t port, int backlog,
                            uint16_t *bound_port, int *error_number) {
    struct sockaddr_storage storage;
    socklen_t length;
    memset(&storage, 0, sizeof storage);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        length = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        length = sizeof *v6;
    } else {
        *error_number = EINVAL;
        return CMHD_LISTEN_INVALID_ADDRESS;
    }

    int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return fail(fd, error_number);
    int on = 1;
    /* Restarts must not wait for TIME_WAIT sockets of the previous process to expire. */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0) return fail(fd, error_number);
    if (storage.ss_family == AF_INET6) {
        /* "::" should also accept IPv4 (dual stack), as operators expect from other servers. */
        int off = 0;
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    }
    if (bind(fd, (struct sockaddr *)&storage, length) != 0) return fail(fd, error_number);
    if (listen(fd, backlog) != 0) return fail(fd, error_number);

    struct sockaddr_storage actual;
    socklen_t actual_length = sizeof actual;
    if (getsockname(fd, (struct sockaddr *)&actual, &actual_length) != 0) return fail(fd, error_number);
    *bound_port = actual.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&actual)->sin6_port)
                                               : ntohs(((struct sockaddr_in *)&actual)->sin_port);
    return fd;
}

int cmhd_inspect_listen_socket(int fd, uint16_t *bound_port, int *error_number) {
    *error_number = 0;
    int type = 0, listening = 0;
    socklen_t length = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0) {
        *error_number = errno;
        return -1;
    }
    length = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0) {
        *error_number = errno;
        return -1;
    }
    struct sockaddr_storage actual;
    socklen_t actual_length = sizeof actual;
    if (getsockname(fd, (struct sockaddr *)&actual, &actual_length) != 0) {
        *error_number = errno;
        return -1;
    }
    if (type != SOCK_STREAM || !listening ||
        (actual.ss_family != AF_INET && actual.ss_family != AF_INET6))
        return -1;
    *bound_port = actual.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&actual)->sin6_port)
                                               : ntohs(((struct sockaddr_in *)&actual)->sin_port);
    /* MHD's epoll loops expect a non-blocking listen socket, as cmhd_open_listen_socket makes. */
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
        fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        *error_number = errno;
        return -1;
    }
    return 0;
}

int cmhd_refuse_new_connections(int fd) {
    /* On Linux, shutdown(SHUT_RD) on a listening TCP socket stops it listening (the kernel
     * disconnects it: queued, unaccepted connections are reset and new SYNs get RST), while
     * the descriptor stays valid, so no worker thread can race on a reused fd number. */
    return shutdown(fd, SHUT_RD);
}
