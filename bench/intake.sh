#!/usr/bin/env bash
# Share-intake write throughput: 64 concurrent clients POST distinct URLs to /v1/intake for
# DURATION seconds, once with group commit (the default) and once with one transaction per
# request (intake.groupCommit=false) — the same durability (WAL, synchronous=FULL, answer
# after COMMIT) in both — in the same run, on the same disk. Prints items/s and p99 for both
# and their ratio. Then the same against PostgreSQL (a throwaway cluster under bench/results/,
# fsync=on, synchronous_commit=on): group commit vs per request, and two replicas behind a
# round-robin nginx sharing it vs one replica. Needs wrk (and postgresql, nginx-light for the
# PostgreSQL part; STORES=sqlite skips it); the databases live under bench/results/ (a real
# disk, never tmpfs, so fsync costs what it costs in production).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
PORT=${PORT:-18480}
STORES=${STORES:-sqlite postgres}
command -v wrk >/dev/null || { echo "bench/intake.sh needs wrk (apt-get install wrk)" >&2; exit 1; }

# NAVPOLICYD=path measures another binary (an A/B against an older build); SKIP_BUILD=1 uses
# the release binary as it is.
if [[ -z ${NAVPOLICYD:-} && ${SKIP_BUILD:-0} != 1 ]]; then
  swift build -c release --product navpolicyd >/dev/null
fi
binary=${NAVPOLICYD:-.build/release/navpolicyd}
results=bench/results/intake-$(date +%Y%m%d-%H%M%S)
mkdir -p "$results"

run() { # run NAME GROUP_COMMIT [DATABASE [REPLICAS]]
  local name=$1 group=$2 dir="$results/$1"
  mkdir -p "$dir"
  local database=${3:-$PWD/$dir/intake.sqlite3} replicas=${4:-1}
  printf '{"defaultDecision":"allow","handlers":[{"name":"logout","type":"logout","match":{"paths":["/logout"]}}],"intake":{"groupCommit":%s,"database":"%s"}}\n' \
    "$group" "$database" >"$dir/config.json"
  local pids=() target=$PORT
  for replica in $(seq "$replicas"); do
    local port=$((PORT + replica))
    [[ $replicas -eq 1 ]] && port=$PORT
    "$binary" serve --config "$dir/config.json" --listen "127.0.0.1:$port" 2>"$dir/daemon-$replica.log" &
    pids+=($!)
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
  done
  local nginx_pid=
  if [[ $replicas -gt 1 ]]; then
    local servers=""
    for replica in $(seq "$replicas"); do servers+="server 127.0.0.1:$((PORT + replica));"; done
    mkdir -p "$dir/nginx"
    cat >"$dir/nginx/nginx.conf" <<NGINX
daemon off; worker_processes 1; pid $PWD/$dir/nginx/nginx.pid; error_log $PWD/$dir/nginx/error.log warn;
events { worker_connections 1024; }
http { access_log off; client_body_temp_path $PWD/$dir/nginx/body; proxy_temp_path $PWD/$dir/nginx/proxy;
  fastcgi_temp_path $PWD/$dir/nginx/f; uwsgi_temp_path $PWD/$dir/nginx/u; scgi_temp_path $PWD/$dir/nginx/s;
  upstream replicas { $servers keepalive 64; }
  server { listen 127.0.0.1:$PORT; location / { proxy_pass http://replicas; proxy_http_version 1.1; proxy_set_header Connection ""; } } }
NGINX
    /usr/sbin/nginx -p "$PWD/$dir/nginx" -e "$PWD/$dir/nginx/error.log" -c "$PWD/$dir/nginx/nginx.conf" &
    nginx_pid=$!
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.05; done
  fi
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s bench/intake.lua "http://127.0.0.1:$PORT" -- "$name" \
    >"$dir/wrk.txt"
  : >"$dir/metrics.txt"
  for replica in $(seq "$replicas"); do
    local port=$((PORT + replica)); [[ $replicas -eq 1 ]] && port=$PORT
    curl -fs "http://127.0.0.1:$port/metrics" | grep '^navpolicyd_intake' >>"$dir/metrics.txt" || true
  done
  [[ -n $nginx_pid ]] && { kill -TERM "$nginx_pid"; wait "$nginx_pid" || true; }
  for pid in "${pids[@]}"; do kill -TERM "$pid"; wait "$pid" || true; done
  local line; line=$(grep '^RESULT' "$dir/wrk.txt")
  local requests non2xx seconds p99
  requests=$(sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$line")
  non2xx=$(sed -E 's/.*non2xx=([0-9]+).*/\1/' <<<"$line")
  seconds=$(sed -E 's/.*seconds=([0-9.]+).*/\1/' <<<"$line")
  p99=$(sed -E 's/.*p99_ms=([0-9.]+).*/\1/' <<<"$line")
  local commits writes
  commits=$(awk '/^navpolicyd_intake_commits_total/ {s += $2} END {print s}' "$dir/metrics.txt")
  writes=$(awk '/^navpolicyd_intake_committed_writes_total/ {s += $2} END {print s}' "$dir/metrics.txt")
  local items_per_second; items_per_second=$(awk -v r="$requests" -v e="$non2xx" -v s="$seconds" 'BEGIN {printf "%.0f", (r - e) / s}')
  printf '%-26s items/s=%-7s p99=%-8s ms  non-2xx=%-4s commits=%s (mean batch %s)\n' "$name" "$items_per_second" "$p99" "$non2xx" \
    "${commits:-?}" "$(awk -v c="${commits:-0}" -v w="${writes:-0}" 'BEGIN {printf "%.1f", c ? w / c : 0}')"
  echo "$items_per_second $p99" >"$dir/summary"
}

ratio() { # ratio LABEL RUN_A RUN_B
  local a_rate a_p99 b_rate b_p99
  read -r a_rate a_p99 <"$results/$2/summary"
  read -r b_rate b_p99 <"$results/$3/summary"
  awk -v l="$1" -v a="$a_rate" -v b="$b_rate" -v ap="$a_p99" -v bp="$b_p99" \
    'BEGIN {printf "%s: %.2fx items/s, p99 %.2fx\n", l, a / b, ap / bp}'
}

echo "intake benchmark: $CONNECTIONS connections, ${DURATION}s each, results in $results"
if [[ " $STORES " == *" sqlite "* ]]; then
  run sqlite-per-request false
  run sqlite-group-commit true
  ratio "SQLite group commit vs one transaction per request" sqlite-group-commit sqlite-per-request
fi
if [[ " $STORES " == *" postgres "* ]]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  cluster="$PWD/$results/pg"
  pgport=$((PORT + 50))
  as_postgres=()
  if [[ $(id -u) -eq 0 ]]; then as_postgres=(runuser -u postgres -- env -C /); fi
  mkdir -p "$cluster"; [[ $(id -u) -eq 0 ]] && chown postgres "$cluster"
  "${as_postgres[@]}" "$pgbin/initdb" -D "$cluster/data" -A trust -U postgres >/dev/null
  # fsync and synchronous_commit stay on (the defaults): the same durability as SQLite's FULL.
  "${as_postgres[@]}" "$pgbin/pg_ctl" -D "$cluster/data" -l "$cluster/log" -w \
    -o "-p $pgport -k $cluster -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on" start >/dev/null
  trap '"${as_postgres[@]}" "$pgbin/pg_ctl" -D "$cluster/data" -m fast stop >/dev/null' EXIT
  pg() { # a fresh database per run, so every run starts empty
    "${as_postgres[@]}" "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres "$1"
    echo "postgresql://postgres@127.0.0.1:$pgport/$1"
  }
  run pg-per-request false "$(pg per_request)"
  run pg-group-commit true "$(pg group_commit)"
  run pg-group-commit-2-replicas true "$(pg two_replicas)" 2
  ratio "PostgreSQL group commit vs one transaction per request" pg-group-commit pg-per-request
  ratio "PostgreSQL two replicas behind nginx vs one replica" pg-group-commit-2-replicas pg-group-commit
fi
