#!/usr/bin/env bash
# CONNECT tunnel benchmark (issue 29): one bulk HTTPS download, in one run, three ways:
#   direct   curl → nginx (TLS) on loopback
#   tunnel   curl -x navpolicyd (CONNECT, SNI checked, splice relay) → the same nginx
#   squid    curl -x Squid 5.7 (CONNECT) → the same nginx
# Targets: tunnel >= 0.8x direct, tunnel >= 1.0x Squid. Each round runs the three back to back,
# alternating the order; the median over rounds is the figure to quote (this shared machine's
# speed drifts between minutes). Also prints CPU seconds per relayed GB for navpolicyd and Squid
# (utime+stime of the proxy process over the round's downloads, from /proc/PID/stat) and runs
# 200 concurrent tunnels once. A measurement, not a test: missed targets never fail the script.
# Needs: nginx-light, squid, curl, openssl (Debian). The relay runs in the kernel (splice), so
# the debug build measures the same relay as a release one; NAVPOLICYD=path picks another binary.
# Usage: bench/connect-tunnel.sh [FILE_MIB] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${1:-512}
rounds=${2:-3}
work=$(mktemp -d /tmp/navpolicyd-bench-tunnel.XXXXXX)
chmod 755 "$work"  # nginx and squid drop to unprivileged users when started by root
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
[[ -n ${KEEP_LOGS:-} ]] && trap 'cat "$work"/*.log "$work"/squid/cache.log 2>/dev/null; cleanup' EXIT

for tool in nginx squid curl openssl; do
  command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || { echo "missing $tool" >&2; exit 1; }
done
binary=${NAVPOLICYD:-.build/debug/navpolicyd}
[[ -x $binary ]] || swift build --product navpolicyd >&2

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 never opened" >&2; exit 1; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

origin_port=$(free_port); navpolicyd_port=$(free_port); squid_port=$(free_port)
host=bench.test

# The origin: nginx with a self-signed certificate for bench.test, one static file.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 1 \
  -subj "/CN=$host" -addext "subjectAltName=DNS:$host" 2>/dev/null
mkdir -p "$work/www"
head -c "$((size_mib * 1024 * 1024))" /dev/urandom >"$work/www/bulk"
cat >"$work/nginx.conf" <<CONF
daemon off; worker_processes 1; pid $work/nginx.pid; error_log $work/nginx.error.log warn;
events { worker_connections 4096; }
http {
  access_log off; client_body_temp_path $work/cb; proxy_temp_path $work/px;
  fastcgi_temp_path $work/fc; uwsgi_temp_path $work/uw; scgi_temp_path $work/sc;
  sendfile on;
  server { listen 127.0.0.1:$origin_port ssl; server_name $host; root $work/www;
           ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem; }
}
CONF
/usr/sbin/nginx -p "$work" -e "$work/nginx.error.log" -c "$work/nginx.conf" &
pids+=($!)

# navpolicyd: the name pinned to the origin (so the internal-destination guard exempts it).
cat >"$work/navpolicy.json" <<CONF
{"defaultDecision": "allow", "handlers": [], "server": {"watchConfig": false},
 "proxy": {"resolve": {"$host:$origin_port": "127.0.0.1"},
           "connect": {"ports": [$origin_port], "maxTunnelsPerIP": 1024}}}
CONF
"$binary" serve --config "$work/navpolicy.json" --listen 127.0.0.1:0 --proxy-listen "127.0.0.1:$navpolicyd_port" \
  2>"$work/navpolicyd.log" &
navpolicyd_pid=$!
pids+=($navpolicyd_pid)

# Squid 5.7: CONNECT to the origin's port only, no cache, the name from its own hosts file.
echo "127.0.0.1 $host" >"$work/hosts"
mkdir -p "$work/squid" && chmod 777 "$work/squid"
cat >"$work/squid.conf" <<CONF
http_port 127.0.0.1:$squid_port
acl bench_port port $origin_port
acl CONNECT method CONNECT
http_access allow CONNECT bench_port localhost
http_access deny all
hosts_file $work/hosts
cache deny all
access_log none
cache_log $work/squid/cache.log
pid_filename $work/squid/squid.pid
coredump_dir $work/squid
shutdown_lifetime 0 seconds
CONF
/usr/sbin/squid -N -f "$work/squid.conf" &
squid_pid=$!
pids+=($squid_pid)

wait_port "$origin_port"; wait_port "$navpolicyd_port"; wait_port "$squid_port"

url="https://$host:$origin_port/bulk"
common=(-s -o /dev/null --cacert "$work/cert.pem" -w '%{http_code} %{size_download} %{time_total}')
# Prints MB/s of one download (and fails loudly when it was not a whole 200).
download() {
  local out code bytes seconds
  out=$(curl "${common[@]}" "$@" "$url")
  read -r code bytes seconds <<<"$out"
  [[ $code == 200 && $bytes == $((size_mib * 1024 * 1024)) ]] || { echo "download failed: $out ($*)" >&2; exit 1; }
  python3 -c "print(round($bytes / 1048576 / $seconds, 1))"
}
direct() { download --resolve "$host:$origin_port:127.0.0.1"; }
tunnel() { download -x "127.0.0.1:$navpolicyd_port"; }
squid() { download -x "127.0.0.1:$squid_port"; }

# Warm-up (page cache, TLS session set-up paths).
direct >/dev/null; tunnel >/dev/null; squid >/dev/null

tick=$(getconf CLK_TCK)
declare -a r_direct r_tunnel r_squid r_vs_direct r_vs_squid cpu_navpolicyd cpu_squid
for round in $(seq "$rounds"); do
  if ((round % 2)); then order=(direct tunnel squid); else order=(squid tunnel direct); fi
  for mode in "${order[@]}"; do
    case $mode in
      direct) d=$(direct) ;;
      tunnel) before=$(cpu_ticks "$navpolicyd_pid"); t=$(tunnel); after=$(cpu_ticks "$navpolicyd_pid")
              cpu_navpolicyd+=("$(python3 -c "print(round(($after - $before) / $tick / ($size_mib / 1024), 3))")") ;;
      squid) before=$(cpu_ticks "$squid_pid"); s=$(squid); after=$(cpu_ticks "$squid_pid")
             cpu_squid+=("$(python3 -c "print(round(($after - $before) / $tick / ($size_mib / 1024), 3))")") ;;
    esac
  done
  r_direct+=("$d"); r_tunnel+=("$t"); r_squid+=("$s")
  r_vs_direct+=("$(python3 -c "print(round($t / $d, 3))")"); r_vs_squid+=("$(python3 -c "print(round($t / $s, 3))")")
  echo "round $round: direct $d MB/s, tunnel $t MB/s, squid $s MB/s; tunnel/direct ${r_vs_direct[-1]}, tunnel/squid ${r_vs_squid[-1]}"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo
echo "bulk ${size_mib} MiB over TLS, median of $rounds rounds:"
echo "  direct  $(median "${r_direct[@]}") MB/s"
echo "  tunnel  $(median "${r_tunnel[@]}") MB/s   (navpolicyd CONNECT, splice relay)"
echo "  squid   $(median "${r_squid[@]}") MB/s   (Squid $(/usr/sbin/squid -v | sed -n 's/.*Version \([0-9.]*\).*/\1/p'))"
echo "  tunnel/direct $(median "${r_vs_direct[@]}")   (target >= 0.8)"
echo "  tunnel/squid  $(median "${r_vs_squid[@]}")   (target >= 1.0)"
echo "  CPU seconds per relayed GB: navpolicyd $(median "${cpu_navpolicyd[@]}"), squid $(median "${cpu_squid[@]}")"

# 200 concurrent tunnels, each downloading 1 MiB of the file (a range).
urls=()
for _ in $(seq 200); do urls+=(-o /dev/null "$url"); done
started=$(date +%s.%N)
results=$(curl -s --parallel --parallel-immediate --parallel-max 200 --max-time 120 -r 0-1048575 \
  -x "127.0.0.1:$navpolicyd_port" --cacert "$work/cert.pem" -w '%{http_code}\n' "${urls[@]}" 2>/dev/null)
elapsed=$(python3 -c "import time; print(round(time.time() - $started, 2))")
ok=$(grep -c '^206$' <<<"$results" || true)
echo "  200 concurrent tunnels: $ok completed (206) in ${elapsed}s"
