// libcurl for Swift: curl_easy_setopt and curl_easy_getinfo are variadic, which Swift
// cannot call, so each argument type gets a typed inline wrapper; the few macros and
// unions Swift cannot import get one too.
#ifndef NAVPOLICYD_CCURL_SHIM_H
#define NAVPOLICYD_CCURL_SHIM_H
#include <curl/curl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode ccurl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_set_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
typedef int (*ccurl_sockopt_callback)(void *context, curl_socket_t socket, curlsocktype purpose);
typedef int (*ccurl_closesocket_callback)(void *context, curl_socket_t socket);
typedef int (*ccurl_prereq_callback)(void *context, char *primaryIP, char *localIP, int primaryPort, int localPort);

/// CURLOPT_SOCKOPTFUNCTION: told about every socket libcurl opens.
static inline CURLcode ccurl_set_sockopt_callback(CURL *handle, ccurl_sockopt_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, value);
}
/// CURLOPT_CLOSESOCKETFUNCTION: closes (and is told about) every socket libcurl is done with.
static inline CURLcode ccurl_set_closesocket_callback(CURL *handle, ccurl_closesocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, value);
}
/// CURLOPT_PREREQFUNCTION: runs once the connection (new or reused) is ready, before the request is sent.
static inline CURLcode ccurl_set_prereq_callback(CURL *handle, ccurl_prereq_callback value) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
}
typedef curl_socket_t (*ccurl_opensocket_callback)(void *context, curlsocktype purpose, struct curl_sockaddr *address);

/// CURLOPT_OPENSOCKETFUNCTION: creates every socket libcurl connects with, told the address first.
static inline CURLcode ccurl_set_opensocket_callback(CURL *handle, ccurl_opensocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, value);
}
/// The IP address (network order, into `bytes`, room for 16) and port of the address libcurl is
/// about to connect to; returns 4 or 16, or 0 for any other family (or a short address).
static inline int ccurl_sockaddr_ip(const struct curl_sockaddr *address, unsigned char *bytes, int *port) {
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)&address->addr;
        memcpy(bytes, &in->sin_addr, 4);
        *port = ntohs(in->sin_port);
        return 4;
    }
    if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)&address->addr;
        memcpy(bytes, &in6->sin6_addr, 16);
        *port = ntohs(in6->sin6_port);
        return 16;
    }
    return 0;
}
/// What libcurl's own opensocket does, close-on-exec: the socket for `address`.
static inline curl_socket_t ccurl_open_socket(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}
/// A numeric IPv4 or IPv6 address (as CURLOPT_PREREQFUNCTION reports the connected one) into
/// `bytes` (room for 16); returns 4 or 16, or 0 when `text` is neither.
static inline int ccurl_parse_ip(const char *text, unsigned char *bytes) {
    if (inet_pton(AF_INET, text, bytes) == 1) return 4;
    if (inet_pton(AF_INET6, text, bytes) == 1) return 16;
    return 0;
}
static inline CURLcode ccurl_get_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
/// A long-valued multi handle option (curl_multi_setopt is variadic too).
static inline CURLMcode ccurl_multi_set_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}
/// Resumes a transfer paused by its write callback (CURLPAUSE_CONT is a composite macro).
static inline CURLcode ccurl_unpause(CURL *handle) {
    return curl_easy_pause(handle, CURLPAUSE_CONT);
}
/// The easy handle and result of a CURLMSG_DONE message (the result sits in a union).
static inline CURL *ccurl_done_message(CURLMsg *message, CURLcode *result) {
    if (message == NULL || message->msg != CURLMSG_DONE) return NULL;
    *result = message->data.result;
    return message->easy_handle;
}
#endif
