# Shared by the scale benchmarks (rules.sh, compiled-policy.sh): sourced after ROOT is set and
# the working directory is the package root. Installs wrk when missing, builds the release
# binary (unless SKIP_BUILD=1), makes a scratch directory (kept with KEEP_TMP=1), and starts
# and stops one daemon at a time on a free loopback port.
#   bench_setup NAME   → BIN, TMP; an EXIT trap stops the daemon and removes TMP
#   start_daemon CONFIG → DAEMON_PID, PORT (waits until /readyz answers); stop_daemon

die() { echo "bench/${BENCH_NAME:-$(basename "$0")}: $*" >&2; exit 1; }

bench_setup() {
    BENCH_NAME="$1"
    if ! command -v wrk >/dev/null 2>&1; then
        sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
        "${sudo_cmd[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq wrk \
            || die "wrk is missing and could not be installed"
    fi
    if [ "${SKIP_BUILD:-0}" != 1 ]; then swift build -c release >&2 || die "release build failed"; fi
    BIN="${BIN:-$ROOT/.build/release/navpolicyd}"
    [ -x "$BIN" ] || die "$BIN not found"
    TMP="$(mktemp -d "${TMPDIR:-/tmp}/navpolicy-${BENCH_NAME%.sh}.XXXXXX")"
    DAEMON_PID=""
    trap bench_cleanup EXIT
}

bench_cleanup() {
    [ -n "$DAEMON_PID" ] && kill -TERM "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null
    if [ "${KEEP_TMP:-0}" = 1 ]; then echo "kept $TMP" >&2; else rm -rf "$TMP"; fi
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_daemon() {  # config → sets DAEMON_PID and PORT, waits until ready
    PORT="$(free_port)"
    "$BIN" serve --config "$1" --listen "127.0.0.1:$PORT" 2>"$TMP/daemon.log" &
    DAEMON_PID=$!
    for _ in $(seq 1 600); do
        curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    die "daemon on $1 did not become ready: $(tail -3 "$TMP/daemon.log")"
}
stop_daemon() { kill -TERM "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; DAEMON_PID=""; }
