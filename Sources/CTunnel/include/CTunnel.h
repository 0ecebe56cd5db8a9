// Linux zero-copy relay calls for the CONNECT tunnel. Glibc declares splice(2) and
// F_SETPIPE_SZ only under _GNU_SOURCE, which Swift's Glibc module does not define, so these
// few entry points live in C. Keep this file tiny: the relay's logic is in Swift.
#ifndef CTUNNEL_H
#define CTUNNEL_H

#include <stddef.h>
#include <sys/types.h>

/// splice(2) of up to `length` bytes from `from` to `to` (one of them a pipe), without
/// blocking on the pipe; SPLICE_F_MOVE. Returns splice's result (errno set on -1).
ssize_t ctunnel_splice(int from, int to, size_t length);

/// A non-blocking, close-on-exec pipe whose capacity is raised to `capacity` bytes when the
/// kernel allows (fewer splice calls per MB). Returns the capacity it has, or -1.
int ctunnel_pipe(int fds[2], int capacity);

#endif
