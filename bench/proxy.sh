#!/usr/bin/env bash
# Proxy benchmark: one run, one loopback origin (nginx serving a small page), wrk as client.
#   cancel path: navpolicyd forward proxy vs Privoxy +block   (target: navpolicyd >= 15x Privoxy, issue 18)
#   allow path:  navpolicyd forward proxy vs nginx proxy_pass with keep-alive upstreams
#                                                          (target: navpolicyd >= 0.75x nginx, issue 18)
# Each round runs every pair back to back, alternating which side goes first; the ratio of a
# round compares runs seconds apart, and the median of the rounds is the figure to quote
# (this shared machine's speed drifts by tens of percent between minutes).
# A measurement, not a test: missed targets never change the exit status.
# Needs: wrk, nginx-light, privoxy (Debian) and a release build (built if missing).
# Usage: bench/proxy.sh [DURATION_SECONDS] [CONNECTIONS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/origin-nginx.sh
source bench/origin-nginx.sh
duration=${1:-10}
connections=${2:-32}
rounds=${3:-3}
work=$(mktemp -d /tmp/navpolicyd-bench-proxy.XXXXXX)
chmod 755 "$work"  # nginx workers run as nobody when started by root
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

for tool in wrk nginx privoxy; do
  command -v "$tool" >/dev/null || { echo "missing $tool (scripts/install-deps.sh bench)" >&2; exit 1; }
done
# NAVPOLICYD=path measures another binary (an A/B against an older build in the same minutes).
binary=${NAVPOLICYD:-.build/release/navpolicyd}
[[ -n ${NAVPOLICYD:-} || -x .build/release/navpolicyd ]] || swift build -c release --product navpolicyd >&2

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 never opened" >&2; exit 1; }

origin_port=$(free_port); nginx_proxy_port=$(free_port); privoxy_port=$(free_port)
navpolicyd_port=$(free_port); proxy_port=$(free_port)

# One nginx process serves both the origin and the proxy_pass reference, 1 worker each side's share.
origin_nginx_start "$work" "$origin_port" "  upstream origin { server 127.0.0.1:$origin_port; keepalive 64; }
  server { listen 127.0.0.1:$nginx_proxy_port;
    location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection \"\"; } }"
pids+=("$origin_nginx_pid")

# Privoxy: block /logout on every host, forward the rest (only the block path is measured).
cat > "$work/bench.action" <<'CONF'
{ +block{navpolicyd benchmark} }
/logout
CONF
cat > "$work/privoxy.conf" <<CONF
listen-address 127.0.0.1:$privoxy_port
confdir /etc/privoxy
actionsfile $work/bench.action
logdir $work
keep-alive-timeout 300
CONF
privoxy --no-daemon "$work/privoxy.conf" >/dev/null 2>&1 & pids+=($!)

proxy_bench_policy "$work/policy.json"
"$binary" serve --config "$work/policy.json" --listen "127.0.0.1:$navpolicyd_port" \
  --proxy-listen "127.0.0.1:$proxy_port" 2>"$work/navpolicyd.log" & pids+=($!)

for port in "$origin_port" "$nginx_proxy_port" "$privoxy_port" "$proxy_port"; do wait_port "$port"; done

# wrk sends wrk.path on the request line, so an absolute URL there makes it a proxy client.
absolute() { printf 'wrk.path = "http://127.0.0.1:%s%s"\n' "$origin_port" "$1" > "$work/$2.lua"; echo "$work/$2.lua"; }
run() { # name url [script]
  local output
  output=$(wrk -t 2 -c "$connections" -d "${duration}s" ${3:+-s "$3"} "$2")
  local rps; rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$output")
  local non2xx; non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$output")
  printf '%-34s %12s req/s   non-2xx/3xx: %s\n' "$1" "$rps" "${non2xx:-0}" >&2
  echo "$rps"
}

# Sanity: each path does what it claims before it is timed.
# (Compared in the shell, not with grep -q, which would SIGPIPE curl under pipefail.)
check() { [[ "$2" == *"$3"* ]] || { echo "sanity check failed: $1 answered: $2" >&2; exit 1; }; }
check "navpolicyd cancel" "$(curl -s -o /dev/null -w '%{http_code}' -x "127.0.0.1:$proxy_port" "http://127.0.0.1:$origin_port/logout")" 403
check "privoxy block" "$(curl -s -o /dev/null -w '%{http_code}' -x "127.0.0.1:$privoxy_port" "http://127.0.0.1:$origin_port/logout")" 403
check "navpolicyd allow" "$(curl -s -x "127.0.0.1:$proxy_port" "http://127.0.0.1:$origin_port/page")" "allowed page"
check "nginx proxy_pass" "$(curl -s "http://127.0.0.1:$nginx_proxy_port/page")" "allowed page"

echo "proxy benchmark: ${duration}s per run, $connections connections, wrk -t 2, $rounds rounds, $(nproc) cores" >&2
cancel_script=$(absolute /logout cancel)
allow_script=$(absolute /page allow)
ratio() { python3 -c "print(f'{float(\"$1\")/float(\"$2\"):.2f}')"; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
cancel_ratios=(); allow_ratios=()
for round in $(seq 1 "$rounds"); do
  echo "round $round" >&2
  if (( round % 2 == 1 )); then
    a=$(run "cancel  navpolicyd (403)" "http://127.0.0.1:$proxy_port" "$cancel_script")
    b=$(run "cancel  privoxy +block (403)" "http://127.0.0.1:$privoxy_port" "$cancel_script")
    c=$(run "allow   navpolicyd -> origin" "http://127.0.0.1:$proxy_port" "$allow_script")
    d=$(run "allow   nginx proxy_pass -> origin" "http://127.0.0.1:$nginx_proxy_port/page")
  else
    b=$(run "cancel  privoxy +block (403)" "http://127.0.0.1:$privoxy_port" "$cancel_script")
    a=$(run "cancel  navpolicyd (403)" "http://127.0.0.1:$proxy_port" "$cancel_script")
    d=$(run "allow   nginx proxy_pass -> origin" "http://127.0.0.1:$nginx_proxy_port/page")
    c=$(run "allow   navpolicyd -> origin" "http://127.0.0.1:$proxy_port" "$allow_script")
  fi
  cancel_ratios+=("$(ratio "$a" "$b")"); allow_ratios+=("$(ratio "$c" "$d")")
  echo "  cancel ratio ${cancel_ratios[-1]}x, allow ratio ${allow_ratios[-1]}x" >&2
done
echo "cancel path: navpolicyd / privoxy = $(median "${cancel_ratios[@]}")x median of ${cancel_ratios[*]} (target >= 15)"
echo "allow path:  navpolicyd / nginx   = $(median "${allow_ratios[@]}")x median of ${allow_ratios[*]} (target >= 0.75)"
