// The C the WebAssembly module needs beside wasi-libc and compiler-rt's builtins (issue 43),
// compiled with the Swift toolchain's clang for wasm32 by scripts/build-wasm.sh.
//
// - navpolicy_alloc / navpolicy_free: how JavaScript gets linear memory to copy a request, a
//   config or a bundle into. malloc returns NULL when memory cannot grow, which JavaScript turns
//   into an `out-of-memory` error; Swift's allocator would trap the instance instead. What Swift
//   takes over (a bundle) it frees with `deallocate()`, which is free() here too.
// - _swift_stdlib_strtod_clocale: what `Double(String)` calls (the JSON parser reads numbers
//   with it). The embedded standard library leaves it to the platform; this is the native
//   runtime's definition (swift/stdlib/public/stubs/Stubs.cpp) over wasi-libc's strtod, which
//   is musl's, correctly rounded like glibc's, and always in the C locale; its long double
//   arithmetic comes from compiler-rt's builtins (Debian's libclang-rt-dev-wasm32).
// - arc4random_buf: what the embedded standard library seeds its hash tables with. wasi-libc's
//   stretches WASI's random_get through ChaCha20 and asserts its result, which links assert's
//   fprintf and with it printf, strerror and their tables: about 18 KB of the module (7 KB
//   gzipped; docs/performance.md, issue 43) for a few bytes a run asks for. This one asks
//   random_get for them directly, through getentropy (at most 256 bytes a call), and stops the
//   instance as wasi-libc's does (abort, a trap) if the host refuses.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

__attribute__((export_name("navpolicy_alloc"))) void *navpolicy_alloc(size_t count) {
    return malloc(count == 0 ? 1 : count);
}

__attribute__((export_name("navpolicy_free"))) void navpolicy_free(void *pointer) { free(pointer); }

// As the native runtime of this toolchain (Swift 6.3): "snan" (with an optional sign) is a
// signalling NaN, which strtod does not know; anything else is strtod's value and the end of
// what it parsed, which Swift compares with the end of the text. Out-of-range text is ±infinity
// or ±0 as strtod rounds it (Double("1e400") is +infinity natively too; the JSON parser refuses
// what is not finite). A node test holds it to the native answers.
const char *_swift_stdlib_strtod_clocale(const char *nptr, double *outResult) {
    const char *unsigned_text = (nptr[0] == '+' || nptr[0] == '-') ? nptr + 1 : nptr;
    if (strcasecmp(unsigned_text, "snan") == 0) {
        *outResult = __builtin_nans("");
        return nptr + strlen(nptr);
    }
    char *end;
    errno = 0;
    *outResult = strtod(nptr, &end);
    return end;
}

void arc4random_buf(void *buffer, size_t count) {
    unsigned char *bytes = buffer;
    while (count > 0) {
        size_t chunk = count < 256 ? count : 256;
        if (getentropy(bytes, chunk) != 0) abort();
        bytes += chunk;
        count -= chunk;
    }
}
