#define _GNU_SOURCE
#include "CSockets.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <unistd.h>

int csock_address_bytes(const struct sockaddr *address, uint8_t bytes[16]) {
    if (address == NULL) return 0;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        memcpy(bytes, &v4->sin_addr, 4);
        return 4;
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        memcpy(bytes, &v6->sin6_addr, 16);
        return 6;
    }
    return 0;
}

int csock_address_text(int version, const uint8_t bytes[16], char *buffer, size_t buffer_size) {
    if (buffer_size == 0 || (version != 4 && version != 6)) return -1;
    const char *written = inet_ntop(version == 4 ? AF_INET : AF_INET6, bytes, buffer, (socklen_t)buffer_size);
    return written == NULL ? -1 : 0;
}

/* Fills `storage` with the address and port; returns its length, or 0 for another version. */
static socklen_t fill_address(int version, const uint8_t bytes[16], uint16_t port, struct sockaddr_storage *storage) {
    memset(storage, 0, sizeof *storage);
    if (version == 4) {
        struct sockaddr_in *v4 = (struct sockaddr_in *)storage;
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        memcpy(&v4->sin_addr, bytes, 4);
        return sizeof *v4;
    }
    if (version == 6) {
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)storage;
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        memcpy(&v6->sin6_addr, bytes, 16);
        return sizeof *v6;
    }
    return 0;
}

/* The port of a bound IPv4/IPv6 socket; -1 with errno set, or -2 for another family. */
static int bound_port_of(int fd, uint16_t *bound_port) {
    struct sockaddr_storage actual;
    socklen_t length = sizeof actual;
    if (getsockname(fd, (struct sockaddr *)&actual, &length) != 0) return -1;
    if (actual.ss_family == AF_INET6) {
        *bound_port = ntohs(((struct sockaddr_in6 *)&actual)->sin6_port);
    } else if (actual.ss_family == AF_INET) {
        *bound_port = ntohs(((struct sockaddr_in *)&actual)->sin_port);
    } else {
        return -2;
    }
    return 0;
}

static int fail(int fd, int *error_number) {
    *error_number = errno;
    if (fd >= 0) close(fd);
    return CSOCK_SYSTEM_ERROR;
}

int csock_open_listen_socket(int version, const uint8_t bytes[16], uint16_t port, int backlog, int nonblocking,
                             uint16_t *bound_port, int *error_number) {
    struct sockaddr_storage storage;
    socklen_t length = fill_address(version, bytes, port, &storage);
    if (length == 0) {
        *error_number = EINVAL;
        return CSOCK_INVALID_ADDRESS;
    }
    int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
    if (fd < 0) return fail(fd, error_number);
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0) return fail(fd, error_number);
    if (storage.ss_family == AF_INET6) {
        int off = 0;
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    }
    if (bind(fd, (struct sockaddr *)&storage, length) != 0) return fail(fd, error_number);
    if (listen(fd, backlog) != 0) return fail(fd, error_number);
    if (bound_port_of(fd, bound_port) != 0) return fail(fd, error_number);
    return fd;
}

int csock_inspect_listen_socket(int fd, int nonblocking, uint16_t *bound_port, int *error_number) {
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
    if (type != SOCK_STREAM || !listening) return -1;
    int found = bound_port_of(fd, bound_port);
    if (found != 0) {
        *error_number = found == -1 ? errno : 0;
        return -1;
    }
    /* The listener decides how it waits: libmicrohttpd's epoll loops need a non-blocking
     * socket, the gRPC accept thread a blocking one (a systemd socket is either, by
     * NonBlocking=). */
    int flags = fcntl(fd, F_GETFL);
    int wanted = nonblocking ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
    if (flags < 0 || fcntl(fd, F_SETFL, wanted) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        *error_number = errno;
        return -1;
    }
    return 0;
}

int csock_refuse_new_connections(int fd) {
    /* On Linux, shutdown(SHUT_RD) on a listening TCP socket stops it listening (the kernel
     * disconnects it: queued, unaccepted connections are reset and new SYNs get RST), while
     * the descriptor stays valid, so no worker thread can race on a reused fd number. */
    return shutdown(fd, SHUT_RD);
}

int csock_accept(int listen_fd, uint8_t bytes[16], int *version) {
    struct sockaddr_storage peer;
    socklen_t length = sizeof peer;
    int fd = accept4(listen_fd, (struct sockaddr *)&peer, &length, SOCK_CLOEXEC);
    *version = fd >= 0 ? csock_address_bytes((struct sockaddr *)&peer, bytes) : 0;
    return fd;
}

int csock_stream_socket(int version) {
    if (version != 4 && version != 6) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    return socket(version == 4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

int csock_connect(int fd, int version, const uint8_t bytes[16], uint16_t port) {
    struct sockaddr_storage storage;
    socklen_t length = fill_address(version, bytes, port, &storage);
    if (length == 0) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    return connect(fd, (struct sockaddr *)&storage, length);
}

int csock_set_no_delay(int fd) {
    int on = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}
