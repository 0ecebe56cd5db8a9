#!/usr/bin/env python3
"""Soak driver for bench/soak.sh: mixed load against one navpolicyd, sampled once a second.

Runs, all at once, for DURATION seconds: GET/POST/batch decide, GET /v1/authz, forward-proxy
requests allowed (relayed from a local origin) and cancelled (403), intake posts with
Idempotency-Keys (each replayed once), get and delete of the item, list; a config rewrite
every 5 s (atomic rename; the daemon's file watch reloads it), POST /v1/policy/reload every
7 s, and IDLE_CONNECTIONS keep-alive connections that send one request and then sit idle.

Writes one CSV row a second (RSS, open fds, threads, requests by status, p99, unexpected
answers) and prints the pass criteria of issue 12. Loopback only; standard library only.
"""
import http.client
import http.server
import json
import os
import socket
import sys
import threading
import time
import uuid

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
PID = int(ARGS["pid"])
PORT = int(ARGS["port"])
PROXY_PORT = int(ARGS["proxy_port"])
DURATION = float(ARGS["duration"])
CONFIG = ARGS["config"]
CONFIG_A = open(ARGS["config_a"]).read()
CONFIG_B = open(ARGS["config_b"]).read()
TOKEN = ARGS["token"]
CSV = ARGS["csv"]
IDLE_CONNECTIONS = int(ARGS.get("idle", "200"))
WORKERS = int(ARGS.get("workers", "6"))

lock = threading.Lock()
window = {"latencies": [], "status": {}, "unexpected": 0}
totals = {"requests": 0, "unexpected": 0, "errors": 0}
unexpected_examples = []
stop = threading.Event()


def record(kind, status, seconds, expected):
    with lock:
        window["latencies"].append(seconds)
        window["status"][status] = window["status"].get(status, 0) + 1
        totals["requests"] += 1
        if status not in expected:
            window["unexpected"] += 1
            totals["unexpected"] += 1
            if len(unexpected_examples) < 20:
                unexpected_examples.append(f"{kind}: {status}")


class Client:
    """One keep-alive connection, reopened when the server closes it."""

    def __init__(self, port):
        self.port = port
        self.connection = None

    def request(self, kind, method, target, expected, body=None, headers=None):
        headers = dict(headers or {})
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            start = time.monotonic()
            try:
                self.connection.request(method, target, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as error:
                # A keep-alive connection closed by the server between requests: retry once.
                self.connection.close()
                self.connection = None
                if attempt == 0:
                    continue
                with lock:
                    totals["errors"] += 1
                record(kind, f"error:{type(error).__name__}", time.monotonic() - start, expected)
                return None, b""
            except OSError as error:
                self.connection.close()
                self.connection = None
                with lock:
                    totals["errors"] += 1
                record(kind, f"error:{type(error).__name__}", time.monotonic() - start, expected)
                return None, b""
            record(kind, response.status, time.monotonic() - start, expected)
            if response.getheader("Connection", "").lower() == "close":
                self.connection.close()
                self.connection = None
            return response, data
        return None, b""


class Origin(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = b"origin says hello\n" * 8
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def worker(number, origin_port):
    api = Client(PORT)
    proxy = Client(PROXY_PORT)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    json_type = {"Content-Type": "application/json"}
    sequence = 0
    while not stop.is_set():
        sequence += 1
        step = sequence % 10
        if step == 0:
            api.request("decide-get", "GET", "/v1/decide?url=https%3A%2F%2Fapp.example.com%2Flogout", {200})
        elif step == 1:
            api.request(
                "decide-post", "POST", "/v1/decide", {200},
                json.dumps({"url": f"https://app.example.com/p/{sequence}", "navigationType": "linkActivated"}),
                json_type)
        elif step == 2:
            batch = {"requests": [{"url": f"https://s{i}.example/x/{sequence}"} for i in range(20)]}
            api.request("decide-batch", "POST", "/v1/decide", {200}, json.dumps(batch), json_type)
        elif step == 3:
            # As nginx's auth_request subrequest sends it (docs/api.md).
            original = {"X-Original-URI": "/home", "X-Forwarded-Host": "app.example.com", "X-Forwarded-Proto": "https"}
            api.request("authz-allow", "GET", "/v1/authz", {204}, headers=original)
            api.request("authz-cancel", "GET", "/v1/authz", {403}, headers={**original, "X-Original-URI": "/logout"})
        elif step == 4:
            proxy.request("proxy-allow", "GET", f"http://127.0.0.1:{origin_port}/ok/{sequence}", {200})
        elif step == 5:
            proxy.request("proxy-cancel", "GET", f"http://127.0.0.1:{origin_port}/logout", {403})
        elif step == 6:
            key = str(uuid.uuid4())
            body = json.dumps({"url": f"https://share.example/{number}/{sequence}/{key}", "tags": ["soak"]})
            headers = {**json_type, "Idempotency-Key": key}
            response, data = api.request("intake-post", "POST", "/v1/intake", {200, 201}, body, headers)
            api.request("intake-replay", "POST", "/v1/intake", {200, 201}, body, headers)
            try:
                item = json.loads(data)["id"] if response is not None and response.status in (200, 201) else None
            except (ValueError, KeyError):
                item = None
            if item is not None:
                api.request("intake-get", "GET", f"/v1/intake/{item}", {200})
                api.request("intake-delete", "DELETE", f"/v1/intake/{item}", {204})
        elif step == 7:
            api.request("intake-list", "GET", "/v1/intake?limit=20", {200})
        elif step == 8:
            api.request("healthz", "GET", "/healthz", {200})
        else:
            api.request("policy", "GET", "/v1/policy", {200}, headers=auth)


def rewriter():
    """Rewrites the config every 5 s (alternating two valid configs), atomically."""
    flip = False
    while not stop.wait(5):
        flip = not flip
        temporary = CONFIG + ".tmp"
        with open(temporary, "w") as handle:
            handle.write(CONFIG_B if flip else CONFIG_A)
        os.replace(temporary, CONFIG)


def reloader():
    client = Client(PORT)
    while not stop.wait(7):
        client.request("reload", "POST", "/v1/policy/reload", {200}, headers={"Authorization": f"Bearer {TOKEN}"})


def idle_connections():
    """Opens IDLE_CONNECTIONS keep-alive connections, one request each, then keeps them idle."""
    sockets = []
    for _ in range(IDLE_CONNECTIONS):
        connection = socket.create_connection(("127.0.0.1", PORT), timeout=10)
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        connection.recv(4096)
        sockets.append(connection)
    stop.wait()
    alive = 0
    for connection in sockets:
        try:
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            if connection.recv(4096).startswith(b"HTTP/1.1 200"):
                alive += 1
        except OSError:
            pass
        connection.close()
    with lock:
        totals["idle_alive_at_end"] = alive


def process_sample():
    rss = threads = 0
    with open(f"/proc/{PID}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return rss, len(os.listdir(f"/proc/{PID}/fd")), threads


def p99(values):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000


def main():
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Origin)
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    origin_port = origin.server_address[1]
    threads = [threading.Thread(target=idle_connections, daemon=True)]
    threads += [threading.Thread(target=worker, args=(n, origin_port), daemon=True) for n in range(WORKERS)]
    threads += [threading.Thread(target=rewriter, daemon=True), threading.Thread(target=reloader, daemon=True)]
    for thread in threads:
        thread.start()
    rows = []
    statuses = ["200", "201", "204", "403", "other"]
    started = time.monotonic()
    crashed = False
    with open(CSV, "w") as out:
        out.write("second,rss_kb,fds,threads,requests," + ",".join(f"status_{s}" for s in statuses) + ",p99_ms,unexpected\n")
        second = 0
        while time.monotonic() - started < DURATION:
            time.sleep(max(0.0, started + second + 1 - time.monotonic()))
            second += 1
            with lock:
                latencies, counts, unexpected = window["latencies"], window["status"], window["unexpected"]
                window.update(latencies=[], status={}, unexpected=0)
            try:
                rss, fds, thread_count = process_sample()
            except OSError:
                crashed = True
                break
            by_status = [counts.get(int(s), 0) for s in statuses[:-1]]
            by_status.append(sum(counts.values()) - sum(by_status))
            row = [second, rss, fds, thread_count, len(latencies), *by_status, round(p99(latencies), 2), unexpected]
            rows.append(row)
            out.write(",".join(str(value) for value in row) + "\n")
            out.flush()
    stop.set()
    time.sleep(1)
    alive = os.path.exists(f"/proc/{PID}") and not crashed
    report(rows, alive)


def growth(rows, column):
    """Growth over the last 80% of the run: mean of its last 10 samples vs its first 10."""
    tail = rows[len(rows) // 5:]
    if len(tail) < 20:
        return 0.0
    first = sum(row[column] for row in tail[:10]) / 10
    last = sum(row[column] for row in tail[-10:]) / 10
    return (last - first) / first * 100 if first else 0.0


def report(rows, alive):
    minute = min(60, max(1, len(rows) // 5))
    first_p99 = p99_of(rows[:minute])
    last_p99 = p99_of(rows[-minute:])
    rss_growth, fd_growth = growth(rows, 1), growth(rows, 2)
    checks = [
        ("no unexpected answers", totals["unexpected"] == 0, f"{totals['unexpected']} of {totals['requests']}"),
        ("no crash", alive, "daemon alive at the end" if alive else "daemon exited"),
        ("RSS flat after warm-up (<= 10%)", rss_growth <= 10, f"{rss_growth:+.1f}%"),
        ("fds flat after warm-up (<= 10%)", fd_growth <= 10, f"{fd_growth:+.1f}%"),
        (f"p99 of the last {minute} s <= 2x the first", last_p99 <= 2 * max(first_p99, 0.5),
         f"{first_p99:.1f} ms -> {last_p99:.1f} ms"),
    ]
    print(f"soak: {len(rows)} s, {totals['requests']} requests ({totals['requests'] / max(1, len(rows)):.0f}/s), "
          f"transport errors {totals['errors']}, idle connections answering at the end: "
          f"{totals.get('idle_alive_at_end', '?')}/{IDLE_CONNECTIONS}")
    if rows:
        print(f"soak: RSS {rows[0][1] / 1024:.1f} -> max {max(r[1] for r in rows) / 1024:.1f} -> "
              f"{rows[-1][1] / 1024:.1f} MiB; fds {rows[0][2]} -> {rows[-1][2]}; threads {rows[0][3]} -> {rows[-1][3]}")
    for example in unexpected_examples:
        print(f"soak: unexpected {example}")
    for name, passed, detail in checks:
        print(f"soak: {'PASS' if passed else 'FAIL'} {name}: {detail}")
    sys.exit(0 if all(passed for _, passed, _ in checks) else 1)


def p99_of(rows):
    """The worst per-second p99 would be noise; use the median of the per-second p99s."""
    values = sorted(row[-2] for row in rows if row[4] > 0)
    return values[len(values) // 2] if values else 0.0


if __name__ == "__main__":
    main()
