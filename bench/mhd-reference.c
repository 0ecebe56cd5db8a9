/*
 * C libmicrohttpd reference server for bench/http.sh: the transport limit navpolicyd is
 * measured against (issue 18). It runs libmicrohttpd with the options navpolicyd uses
 * (internal epoll thread pool on 127.0.0.1, same connection limits) and does the least work a
 * libmicrohttpd application can do: on the second access-handler call of every request it
 * queues one response created once at start-up (MHD_RESPMEM_PERSISTENT, no copy), whatever the
 * method and path. Request bodies are consumed and dropped, so POST is answered too.
 *
 * Usage: mhd-reference PORT THREADS CONNECTION_LIMIT PER_IP_LIMIT BODY [POOL_BYTES]
 * POOL_BYTES is MHD_OPTION_CONNECTION_MEMORY_LIMIT (navpolicyd's server.connectionMemoryLimitBytes;
 * 32768 when absent).
 * Environment: MHD_REFERENCE_WORK_NS=N (default 0, at most 1000000000) makes the handler spin
 * on clock_gettime(CLOCK_MONOTONIC) for N ns before it queues the answer: a stand-in for an
 * application's per-request CPU, so bench/budget.sh can show how much user-space time per request
 * a libmicrohttpd server may spend and still keep up with nginx.
 * Runs until SIGTERM or SIGINT. Exit 2 on bad arguments or a bad MHD_REFERENCE_WORK_NS, 1 if the
 * daemon does not start.
 *
 * Built by bench/lib-http.sh for bench/http.sh and bench/budget.sh:
 *   cc -O2 -Wall -Wextra -o .build/bench/mhd-reference bench/mhd-reference.c -lmicrohttpd
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

static struct MHD_Response *answer;
/* Busy-wait per request (MHD_REFERENCE_WORK_NS); 0 = none. Set once before MHD starts. */
static long long work_ns;

static long long monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Spins rather than sleeps: the point is CPU spent on the worker thread, the way an
 * application's request handling would spend it, not a wait that frees the core. */
static void spin_for_work_ns(void) {
    long long start = monotonic_ns();
    while (monotonic_ns() - start < work_ns) {
    }
}

/* MHD calls the handler once with the head (*state == NULL), then with each body chunk, then
 * once more with *upload_size == 0. Answering on the second call is the earliest MHD allows
 * for a request without a body, and the same point navpolicyd answers a GET at. */
static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **state) {
    static int seen_head;
    (void)cls;
    (void)url;
    (void)method;
    (void)version;
    (void)upload_data;
    if (*state == NULL) {
        *state = &seen_head;
        return MHD_YES;
    }
    if (*upload_size != 0) {
        *upload_size = 0; /* drop the body chunk */
        return MHD_YES;
    }
    if (work_ns > 0) spin_for_work_ns();
    return MHD_queue_response(connection, MHD_HTTP_OK, answer);
}

/* A decimal argument in [min, max], or -1. */
static long parse_number(const char *text, long min, long max) {
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max) return -1;
    return value;
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s PORT THREADS CONNECTION_LIMIT PER_IP_LIMIT BODY [POOL_BYTES]\n", argv[0]);
        return 2;
    }
    long port = parse_number(argv[1], 1, 65535);
    long threads = parse_number(argv[2], 1, 1024);
    long connection_limit = parse_number(argv[3], 1, INT_MAX);
    long per_ip_limit = parse_number(argv[4], 0, INT_MAX);
    long pool_bytes = argc == 7 ? parse_number(argv[6], 1024, INT_MAX) : 32768;
    if (port < 0 || threads < 0 || connection_limit < 0 || per_ip_limit < 0 || pool_bytes < 0) {
        fprintf(stderr, "mhd-reference: PORT must be 1-65535, THREADS 1-1024, limits non-negative integers, "
                        "POOL_BYTES at least 1024\n");
        return 2;
    }
    const char *body = argv[5];
    const char *work_text = getenv("MHD_REFERENCE_WORK_NS");
    if (work_text != NULL) {
        /* strtol would accept leading blanks and a sign; a count of ns is digits only. */
        long work = work_text[0] >= '0' && work_text[0] <= '9' ? parse_number(work_text, 0, 1000000000L) : -1;
        if (work < 0) {
            fprintf(stderr, "mhd-reference: MHD_REFERENCE_WORK_NS must be an integer from 0 to 1000000000 (ns), got '%s'\n",
                    work_text);
            return 2;
        }
        work_ns = work;
    }

    /* SIGTERM/SIGINT are blocked before MHD starts its threads (they inherit the mask), so
     * only the main thread's sigwait below receives them. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    answer = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    if (answer == NULL || MHD_add_response_header(answer, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json") != MHD_YES ||
        MHD_add_response_header(answer, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store") != MHD_YES) {
        fprintf(stderr, "mhd-reference: could not build the response\n");
        return 1;
    }

    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, handle, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address, MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)connection_limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned int)per_ip_limit, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)pool_bytes,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30, MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "mhd-reference: MHD_start_daemon failed on 127.0.0.1:%ld\n", port);
        return 1;
    }

    int received = 0;
    sigwait(&stop_signals, &received);
    MHD_stop_daemon(daemon);
    MHD_destroy_response(answer);
    return 0;
}
