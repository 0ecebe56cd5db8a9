#!/usr/bin/env python3
"""Serves one policy bundle as the daemon would, with bytes and signature chosen by a test.

Usage: bundle-origin.py --body FILE [--signature BASE64] [--etag TAG] [--cache-control VALUE]
                        [--not-modified-after N] [--truncate-at N]
Prints "listening PORT" once bound to a free loopback port, then answers every GET with
200, the file's bytes, `ETag` (default: none), `Cache-Control: max-age=300, no-transform` and
`Navpolicy-Bundle-Signature` when given. The client's live tests use it to hand the client a
tampered bundle under a genuine signature, which no real daemon would serve, or an answer
with a `Cache-Control` no daemon sends (`--cache-control`; after N answers,
`--not-modified-after N` answers 304 with it, as an injected 304 would), or a download cut
short (`--truncate-at N`: the full Content-Length, N bytes of body, then the connection closed).
"""
import argparse
import http.server
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--body", required=True)
    parser.add_argument("--signature")
    parser.add_argument("--etag")
    parser.add_argument("--cache-control", default="max-age=300, no-transform")
    parser.add_argument("--not-modified-after", type=int)
    parser.add_argument("--truncate-at", type=int)
    options = parser.parse_args()
    with open(options.body, "rb") as file:
        body = file.read()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        answered = 0

        def do_GET(self):
            Handler.answered += 1
            if options.not_modified_after is not None and Handler.answered > options.not_modified_after:
                self.send_response(304)
                self.send_header("Cache-Control", options.cache_control)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", options.cache_control)
            if options.etag:
                self.send_header("ETag", options.etag)
            if options.signature:
                self.send_header("Navpolicy-Bundle-Signature", options.signature)
            self.end_headers()
            if options.truncate_at is not None:
                self.wfile.write(body[: options.truncate_at])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
