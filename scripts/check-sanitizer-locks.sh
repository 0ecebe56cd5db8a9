#!/bin/sh
# Every module (Sources/* and Tests/* target) that uses `Mutex` must compile the same
# SanitizerLocks.swift, so that sanitizer builds (-DNAVPOLICYD_SANITIZER_LOCKS) give TSan a
# lock it can see in every module. The copies cannot be one file (see
# Sources/LockSupport/PThreadMutex.swift); this check keeps them from drifting or missing.
set -eu
cd "$(dirname "$0")/.."
reference=Sources/PolicyService/SanitizerLocks.swift
status=0
for module in Sources/* Tests/*; do
    [ -d "$module" ] || continue
    [ "$module" = Sources/LockSupport ] && continue
    shim="$module/SanitizerLocks.swift"
    if [ -f "$shim" ]; then
        if ! cmp -s "$reference" "$shim"; then
            echo "$shim differs from $reference" >&2
            status=1
        fi
    elif grep -rqE --include='*.swift' '(^|[^A-Za-z0-9_])Mutex[(<]' "$module"; then
        echo "$module uses Mutex but has no SanitizerLocks.swift (copy $reference)" >&2
        status=1
    fi
done
exit $status
