/*
 * Allocation counter for bench/alloc-count.sh: an LD_PRELOAD library that counts every call
 * to malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign in the process (all
 * threads) and writes the totals when the process exits normally (exit(), return from main).
 * Counting calls, not bytes: an allocation costs roughly the same whatever its size.
 *
 * The wrappers call glibc's __libc_* entry points instead of dlsym(RTLD_NEXT): dlsym itself
 * allocates, which would recurse into the counter.
 *
 * Output: "allocations N" and "frees N" lines, to the file named by MALLOC_COUNT_OUT (appended)
 * or to stderr.
 *
 * Built by bench/alloc-count.sh: cc -O2 -shared -fPIC -o .build/bench/malloc-count.so bench/malloc-count.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static atomic_ulong allocations;
static atomic_ulong frees;

void *malloc(size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void free(void *pointer) {
    if (pointer != NULL) atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    __libc_free(pointer);
}

__attribute__((destructor)) static void report(void) {
    char line[128];
    int length = snprintf(line, sizeof line, "allocations %lu\nfrees %lu\n",
                          atomic_load(&allocations), atomic_load(&frees));
    const char *path = getenv("MALLOC_COUNT_OUT");
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : 2;
    if (fd < 0) return;
    if (length > 0) (void)!write(fd, line, (size_t)length);
    if (fd != 2) close(fd);
}
