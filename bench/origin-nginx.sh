#!/usr/bin/env bash
# Sourced by bench/proxy.sh and bench/proxy-count.sh: the loopback origin both measure against
# (one nginx serving a 54-byte page) and the proxy policy, set up in one place so that the
# throughput ratios and the exact per-request counts always describe the same exchange.
#
#   origin_nginx_start WORKDIR ORIGIN_PORT [EXTRA_HTTP_CONF]
#       writes WORKDIR/www/index.html and WORKDIR/nginx.conf and starts nginx in the
#       background (1 worker, no access log, keep-alive without a request limit); its pid is
#       in $origin_nginx_pid. EXTRA_HTTP_CONF is added inside `http { }` (bench/proxy.sh puts
#       its proxy_pass reference there, served by the same process). The caller waits for the
#       port and kills the process.
#   proxy_bench_policy FILE
#       writes the daemon's config: allow by default, /logout cancelled (403 problem).

origin_nginx_start() {
  local work="$1" port="$2" extra="${3:-}"
  mkdir -p "$work/www"
  printf '<!doctype html><html><body>allowed page</body></html>\n' >"$work/www/index.html"
  cat >"$work/nginx.conf" <<CONF
daemon off; worker_processes 1; pid $work/nginx.pid; error_log $work/nginx.error.log warn;
events { worker_connections 4096; }
http {
  access_log off; client_body_temp_path $work/cb; proxy_temp_path $work/px;
  fastcgi_temp_path $work/fc; uwsgi_temp_path $work/uw; scgi_temp_path $work/sc;
  keepalive_requests 1000000;
  server { listen 127.0.0.1:$port; root $work/www; location / { try_files /index.html =404; } }
$extra
}
CONF
  nginx -p "$work" -e "$work/nginx.error.log" -c "$work/nginx.conf" &
  origin_nginx_pid=$!
}

# The benchmark origins listen on 127.0.0.1, an internal destination the proxy refuses unless
# proxy.allowInternalDestinations is set (or the name is pinned in proxy.resolve).
proxy_bench_policy() {
  cat >"$1" <<'CONF'
{"defaultDecision": "allow",
 "handlers": [{"name": "logout", "type": "logout", "match": {"paths": ["/logout"]}}],
 "server": {"watchConfig": false},
 "proxy": {"allowInternalDestinations": true}}
CONF
}
