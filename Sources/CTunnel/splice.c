#define _GNU_SOURCE
#include "CTunnel.h"

#include <fcntl.h>
#include <unistd.h>

ssize_t ctunnel_splice(int from, int to, size_t length) {
    return splice(from, NULL, to, NULL, length, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
}

int ctunnel_pipe(int fds[2], int capacity) {
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    /* Best effort: past /proc/sys/fs/pipe-max-size (or the user's pipe quota) the pipe keeps
     * its default size, which only costs throughput. */
    (void)fcntl(fds[1], F_SETPIPE_SZ, capacity);
    int size = fcntl(fds[1], F_GETPIPE_SZ);
    if (size <= 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    return size;
}
