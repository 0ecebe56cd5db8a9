// libcurl for Swift: curl_easy_setopt and curl_easy_getinfo are variadic, which Swift
// cannot call, so each argument type gets a typed inline wrapper; the few macros and
// unions Swift cannot import get one too.
#ifndef NAVPOLICYD_CCURL_SHIM_H
#define NAVPOLICYD_CCURL_SHIM_H
#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

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
static inline CURLcode ccurl_get_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
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
// The transfer loop drives libcurl with curl_multi_socket_action on its own epoll set:
// libcurl then touches only the transfers whose sockets are ready, instead of polling every
// transfer on every curl_multi_perform pass. curl_multi_setopt is variadic, and epoll_event
// is a packed union Swift imports awkwardly, so both get plain wrappers.
typedef int (*ccurl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *context, void *socketContext);
typedef int (*ccurl_timer_callback)(CURLM *multi, long timeoutMilliseconds, void *context);

static inline CURLMcode ccurl_multi_set_socket_callback(CURLM *multi, ccurl_socket_callback callback, void *context) {
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
    return code != CURLM_OK ? code : curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, context);
}
static inline CURLMcode ccurl_multi_set_timer_callback(CURLM *multi, ccurl_timer_callback callback, void *context) {
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback);
    return code != CURLM_OK ? code : curl_multi_setopt(multi, CURLMOPT_TIMERDATA, context);
}
/// A non-blocking, close-on-exec epoll instance; -1 on failure.
static inline int ccurl_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
/// A non-blocking, close-on-exec eventfd (the loop's wake-up); -1 on failure.
static inline int ccurl_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
/// Registers (or re-registers) `fd` for libcurl's CURL_POLL_* interest `what`; 0 or -1.
static inline int ccurl_epoll_watch(int epoll, int fd, int what) {
    struct epoll_event event = {0};
    event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = fd;
    if (epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event) == 0) return 0;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}
/// Stops watching `fd` (ignored when it is not watched).
static inline void ccurl_epoll_unwatch(int epoll, int fd) {
    struct epoll_event event = {0};
    (void)epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event);
}
/// Waits up to `timeoutMilliseconds`; writes each ready fd and its CURL_CSELECT_* bits into
/// the two arrays (room for `capacity`); returns the count, 0 on timeout or EINTR.
static inline int ccurl_epoll_wait(int epoll, int *fds, int *bits, int capacity, int timeoutMilliseconds) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeoutMilliseconds);
    if (count < 0) return 0;
    for (int index = 0; index < count; index++) {
        uint32_t ready = events[index].events;
        fds[index] = events[index].data.fd;
        bits[index] = ((ready & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) ? CURL_CSELECT_IN : 0)
            | ((ready & EPOLLOUT) ? CURL_CSELECT_OUT : 0) | ((ready & EPOLLERR) ? CURL_CSELECT_ERR : 0);
    }
    return count;
}
#endif
