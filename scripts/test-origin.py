#!/usr/bin/env python3
"""A tiny HTTP/1.1 origin for navpolicyd's enforcement tests and benchmarks.

Usage: test-origin.py [--port N] [--log FILE]
Prints "listening PORT" on stdout once bound (port 0 = any free port), appends
"METHOD TARGET" per request to --log, and answers every request with a small HTML page
naming the path (keep-alive, Content-Length), so tests can see what reached the origin.
Special paths: /slow sleeps 5 s (timeouts), /big sends 1 MiB, /echo returns the request
headers and body, /huge?mb=N sends N MiB with Content-Length, /drip?pause=S sends a
chunked body "first" chunk, pauses S seconds, then a "last" chunk (streaming tests),
/peer answers "peer PORT" with the client's port (connection reuse; ?sleep=S answers after S seconds).
Hostile modes (proxy security tests): /inject?when=now|later answers "first" and then a
second, unsolicited response "INJECTED" on the same connection (at once, or 0.2 s later);
/inject-chunked does the same after a chunked body; /extra-body?status=N answers status N
(204, 304, or any for HEAD) and sends a body plus an unsolicited response after it anyway;
/early answers at once without reading the request body (which the server then parses as
the next request on the connection).
Upstream faults (issue 12): /reset-mid-body declares 100000 bytes, sends 1000 "a" and resets
the connection (RST); /short-body declares 5000 bytes, sends 100 "b" and closes (FIN);
/double-continue sends two 100 Continue interim responses before a 200 "after-continues".
A hostile page (issue 26): /embed?src=URL is HTML loading URL + "img" as an image and
URL + "script" as a script (no-cors subresources a browser sends on its own).
Malformed heads (issue 26): /bad-head?kind=K answers a 200 whose head breaks the field syntax
(see BAD_HEADS: a bare CR in a value or the reason, a bare LF, NUL, obs-fold, a spaced name).
"""
import socket
import struct
import argparse
import http.server
import sys
import urllib.parse
import threading
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_lock = threading.Lock()
    log_path = None

    def log_message(self, format, *args):  # keep stderr quiet; the request log is the record
        pass

    def record(self):
        if Handler.log_path:
            with Handler.log_lock, open(Handler.log_path, "a", encoding="utf-8") as log:
                log.write(f"{self.command} {self.path}\n")

    def answer(self):
        self.record()
        path, _, query = self.path.partition("?")
        arguments = dict(urllib.parse.parse_qsl(query))
        if path in ("/inject", "/inject-chunked", "/extra-body", "/early"):
            return self.hostile(path, arguments)
        if path in ("/reset-mid-body", "/short-body", "/double-continue"):
            return self.fault(path)
        if path == "/bad-head":
            self.close_connection = True
            self.wfile.write(self.BAD_HEADS[arguments.get("kind", "cr-value")] + b"Content-Length: 2\r\n\r\nok")
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if path == "/slow":
            time.sleep(5)
        if path == "/huge":
            return self.huge(int(arguments.get("mb", "1")))
        if path == "/drip":
            return self.drip(float(arguments.get("pause", "1")))
        if path == "/big":
            payload = b"x" * (1 << 20)
            content_type = "application/octet-stream"
        elif path == "/peer":
            # ?sleep=S holds the answer S seconds: overlapping transfers need one connection each.
            time.sleep(min(float(arguments.get("sleep", "0")), 5))
            payload = f"peer {self.client_address[1]}".encode()
            content_type = "text/plain; charset=utf-8"
        elif path == "/embed":
            source = arguments.get("src", "").replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            payload = (f'<!doctype html><html><body><h1 id="origin">embed</h1><img src="{source}img">'
                       f'<script src="{source}script"></script></body></html>').encode()
            content_type = "text/html; charset=utf-8"
        elif path == "/echo":
            lines = [f"{name}: {value}" for name, value in self.headers.items()]
            payload = ("\n".join(lines) + "\n\n").encode() + body
            content_type = "text/plain; charset=utf-8"
        else:
            title = f"origin {self.path}".replace("&", "&amp;").replace("<", "&lt;")
            payload = f"<!doctype html><html><head><title>{title}</title></head><body><h1 id=\"origin\">{title}</h1></body></html>".encode()
            content_type = "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("X-Origin", "test-origin")
        if path == "/spoof-decision":
            # An origin claiming the proxy's decision headers: the proxy must replace them.
            self.send_header("X-Navigation-Decision", "cancel")
            self.send_header("x-navigation-handler", "origin-says")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    INJECTED = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 8\r\n"
                b"X-Origin: injected\r\n\r\nINJECTED")

    BAD_HEADS = {
        "cr-value": b"HTTP/1.1 200 OK\r\nX-Bad: a\rb\r\n",
        "cr-value-end": b"HTTP/1.1 200 OK\r\nX-Bad: ab\r\r\n",
        "cr-reason": b"HTTP/1.1 200 O\rK\r\n",
        "lf-value": b"HTTP/1.1 200 OK\r\nX-Bad: a\nb\r\n",
        "nul-value": b"HTTP/1.1 200 OK\r\nX-Bad: a\x00b\r\n",
        "obs-fold": b"HTTP/1.1 200 OK\r\nX-Bad: a\r\n b\r\n",
        "spaced-name": b"HTTP/1.1 200 OK\r\nX-Bad : a\r\n",
    }

    def hostile(self, path, arguments):
        """Answers that disagree with their own framing, to test the proxy's connection reuse."""
        if path == "/early":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nearly")
            return
        if path == "/inject-chunked":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n0\r\n\r\n"
                             + self.INJECTED)
            return
        if path == "/extra-body":
            status = int(arguments.get("status", "200"))
            self.wfile.write(f"HTTP/1.1 {status} X\r\nContent-Length: 8\r\n\r\nINJECTED".encode()
                             + self.INJECTED)
            return
        first = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nfirst"
        if arguments.get("when") == "later":
            self.wfile.write(first)
            self.wfile.flush()
            time.sleep(0.2)
            self.wfile.write(self.INJECTED)
        else:
            self.wfile.write(first + self.INJECTED)

    def fault(self, path):
        """Origins that break mid-answer: the proxy must cut or fail cleanly, never mend."""
        self.close_connection = True
        if path == "/double-continue":
            body = b"after-continues"
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"
                             + b"HTTP/1.1 200 OK\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            return
        if path == "/short-body":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"b" * 100)
            self.wfile.flush()
            return
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"a" * 1000)
        self.wfile.flush()
        time.sleep(0.1)
        # SO_LINGER with a zero timeout: close() sends RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()

    def huge(self, megabytes):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(megabytes << 20))
        self.end_headers()
        if self.command == "HEAD":
            return
        piece = b"z" * (64 << 10)
        try:
            for _ in range(megabytes * 16):
                self.wfile.write(piece)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def drip(self, pause):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            self.wfile.write(b"6\r\nfirst\n\r\n")
            self.wfile.flush()
            time.sleep(pause)
            self.wfile.write(b"5\r\nlast\n\r\n0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = answer


class Server(http.server.ThreadingHTTPServer):
    # The default backlog of 5 drops connections when a test opens many at once; they would
    # then wait for SYN retransmits and look like a slow origin.
    request_queue_size = 128
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log")
    arguments = parser.parse_args()
    Handler.log_path = arguments.log
    server = Server(("127.0.0.1", arguments.port), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
