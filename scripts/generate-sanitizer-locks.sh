#!/bin/sh
# Writes scripts/templates/SanitizerLocks.swift into every module (target directory) that uses
# `Mutex`, so that sanitizer builds (-DNAVPOLICYD_SANITIZER_LOCKS) give TSan a lock it can see in
# every module, and removes the copy from a module that no longer uses it (its `import LockSupport`
# would break the sanitizer build of a module that does not depend on LockSupport). The copies
# cannot be one file or one module: Sources/LockSupport/PThreadMutex.swift says why.
#
# Usage: scripts/generate-sanitizer-locks.sh          write the copies
#        scripts/generate-sanitizer-locks.sh --check  change nothing; fail when a copy differs
#                                                     from the template, is missing or is stale
#                                                     (`make lint` runs this)
set -eu
cd "$(dirname "$0")/.."
template=scripts/templates/SanitizerLocks.swift
check=false
case "${1:-}" in
--check) check=true ;;
"") ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
status=0
# Every directory that is a target's sources; Tests/Support holds targets, it is not one.
for module in Sources/* Tests/* Tests/Support/* bench/ClientMemoryBench; do
    [ -d "$module" ] || continue
    case "$module" in Sources/LockSupport | Tests/Support) continue ;; esac
    copy="$module/SanitizerLocks.swift"
    if grep -rqE --include='*.swift' --exclude=SanitizerLocks.swift '(^|[^A-Za-z0-9_])Mutex[(<]' "$module"; then
        cmp -s "$template" "$copy" 2>/dev/null && continue
        if $check; then
            echo "$copy is missing or differs from $template (run scripts/generate-sanitizer-locks.sh)" >&2
            status=1
        else
            cp "$template" "$copy"
            echo "wrote $copy"
        fi
    elif [ -f "$copy" ]; then
        if $check; then
            echo "$copy is stale: $module uses no Mutex (run scripts/generate-sanitizer-locks.sh)" >&2
            status=1
        else
            rm "$copy"
            echo "removed $copy"
        fi
    fi
done
exit $status
