#!/usr/bin/env python3
"""Serves one policy bundle as the daemon would, with bytes and signature chosen by a test.

Usage: bundle-origin.py --body FILE [--signature BASE64] [--etag TAG]
Prints "listening PORT" once bound to a free loopback port, then answers every GET with
200, the file's bytes, `ETag` (default: none), `Cache-Control: max-age=300, no-transform` and
`Navpolicy-Bundle-Signature` when given. The client's live tests use it to hand the client a
tampered bundle under a genuine signature, which no real daemon would serve.
"""
import argparse
import http.server
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--body", required=True)
    parser.add_argument("--signature")
    parser.add_argument("--etag")
    options = parser.parse_args()
    with open(options.body, "rb") as file:
        body = file.read()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "max-age=300, no-transform")
            if options.etag:
                self.send_header("ETag", options.etag)
            if options.signature:
                self.send_header("Navpolicy-Bundle-Signature", options.signature)
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
