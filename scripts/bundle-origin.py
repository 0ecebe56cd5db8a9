#!/usr/bin/env python3
"""Serves one policy bundle as the daemon would, with bytes and signature chosen by a test.

Usage: bundle-origin.py --body FILE [--signature BASE64] [--etag TAG] [--cache-control VALUE]
                        [--not-modified-after N] [--not-modified-if-none-match] [--truncate-at N]
                        [--gzip-bomb BYTES] [--claim-length N] [--drip-every SECONDS]
                        [--no-content-length] [--chunked-trailer] [--chunked-endless]
                        [--chunked-disguised mark|status-line]
                        [--redirect-to URL] [--record-authorization FILE]
Prints "listening PORT" once bound to a free loopback port, then answers every GET with
200, the file's bytes, `ETag` (default: none), `Cache-Control: max-age=300, no-transform` and
`Navpolicy-Bundle-Signature` when given. The client's live tests use it to hand the client a
tampered bundle under a genuine signature, which no real daemon would serve, or an answer
with a `Cache-Control` no daemon sends (`--cache-control`; after N answers,
`--not-modified-after N` answers 304 with it, as an injected 304 would; `--not-modified-if-none-match`
answers 304 to every request whose `If-None-Match` names `--etag`, as the daemon does, so only a
request without it gets the body), or a download cut
short (`--truncate-at N`: the full Content-Length, N bytes of body, then the connection closed).
Hostile answers: `--gzip-bomb BYTES` sends, instead of the file, `Content-Encoding: gzip` and a
small gzip stream inflating to BYTES zero bytes; `--claim-length N` announces a Content-Length of
N, sends the file and closes the connection; `--drip-every SECONDS` announces
`Content-Length: 100000`, then sends one byte every SECONDS, never finishing;
`--no-content-length` sends the file with no Content-Length, ended by closing the connection;
`--chunked-trailer` sends it chunked (`Transfer-Encoding: chunked`, no Content-Length), ending
with a trailer field (the signature, when given: the answer that stopped corelibs Foundation on
Linux, attack round 10, F3); `--chunked-endless` sends chunks of zeros, never a last one;
`--chunked-disguised` sends it chunked under a Content-Length, its Transfer-Encoding field spelled
so that a judge reading characters rather than bytes missed it (`mark`: a combining mark after
the colon) or forgot it (`status-line`: a field named `HTTP/1.1` after it; attack round 12, F2);
`--redirect-to URL` answers 302 with `Location: URL`. `--record-authorization FILE` appends each
request's `Authorization` value (or `-`) to FILE, a line each, so a test sees which origin got a
bearer token.
"""
import argparse
import http.server
import struct
import sys
import time
import zlib


def gzip_of_zeros(count):
    """A gzip stream inflating to `count` zero bytes (rounded up to 16 MiB), made without
    compressing them all: after a full flush deflate refers to nothing before it, so every
    16 MiB block after the first compresses to the same bytes, repeated; then an empty final
    block and the trailer (CRC-32 and length)."""
    chunk = bytes(16 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeated = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    chunks = -(-count // len(chunk))
    crc = 0
    for _ in range(chunks):
        crc = zlib.crc32(chunk, crc)
    trailer = struct.pack("<II", crc, (chunks * len(chunk)) & 0xFFFFFFFF)
    return first + repeated * (chunks - 1) + b"\x03\x00" + trailer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--body", required=True)
    parser.add_argument("--signature")
    parser.add_argument("--etag")
    parser.add_argument("--cache-control", default="max-age=300, no-transform")
    parser.add_argument("--not-modified-after", type=int)
    parser.add_argument("--not-modified-if-none-match", action="store_true")
    parser.add_argument("--truncate-at", type=int)
    parser.add_argument("--gzip-bomb", type=int)
    parser.add_argument("--claim-length", type=int)
    parser.add_argument("--drip-every", type=float)
    parser.add_argument("--no-content-length", action="store_true")
    parser.add_argument("--chunked-trailer", action="store_true")
    parser.add_argument("--chunked-endless", action="store_true")
    parser.add_argument("--chunked-disguised", choices=["mark", "status-line"])
    parser.add_argument("--redirect-to")
    parser.add_argument("--record-authorization")
    options = parser.parse_args()
    with open(options.body, "rb") as file:
        body = file.read()
    if options.gzip_bomb is not None:
        body = gzip_of_zeros(options.gzip_bomb)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        answered = 0

        def do_GET(self):
            Handler.answered += 1
            if options.record_authorization:
                with open(options.record_authorization, "a") as record:
                    record.write(self.headers.get("Authorization", "-") + "\n")
            if options.redirect_to:
                self.send_response(302)
                self.send_header("Location", options.redirect_to)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            # The daemon's comparison is richer (lists, W/, *); the client sends one strong tag.
            conditional = options.not_modified_if_none_match and options.etag is not None and any(
                tag.strip() == options.etag for tag in self.headers.get("If-None-Match", "").split(","))
            if conditional or (
                    options.not_modified_after is not None and Handler.answered > options.not_modified_after):
                self.send_response(304)
                # As the daemon does: a 304 names the entity tag it answers for.
                if options.etag is not None:
                    self.send_header("ETag", options.etag)
                self.send_header("Cache-Control", options.cache_control)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if options.drip_every is not None:
                self.send_header("Content-Length", "100000")
                self.end_headers()
                try:
                    for _ in range(100000 - 1):
                        self.wfile.write(b"{")
                        self.wfile.flush()
                        time.sleep(options.drip_every)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True
                return
            if options.chunked_trailer or options.chunked_endless:
                self.send_chunked()
                return
            if options.chunked_disguised:
                self.send_disguised_chunked()
                return
            if options.claim_length is not None:
                self.send_header("Content-Length", str(options.claim_length))
                self.close_connection = True
            elif options.no_content_length:
                self.send_header("Connection", "close")
                self.close_connection = True
            else:
                self.send_header("Content-Length", str(len(body)))
            if options.gzip_bomb is not None:
                self.send_header("Content-Encoding", "gzip")
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
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                # The client hung up on a hostile answer, as it should.
                self.close_connection = True

        def send_chunked(self):
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", options.cache_control)
            trailer = (b"Navpolicy-Bundle-Signature: " + options.signature.encode()) if options.signature else b"X-Trailer: 1"
            if options.chunked_trailer:
                self.send_header("Trailer", trailer.split(b":")[0].decode())
            self.end_headers()
            self.close_connection = True
            try:
                if options.chunked_trailer:
                    self.wfile.write(b"%x\r\n" % len(body) + body + b"\r\n0\r\n" + trailer + b"\r\n\r\n")
                    return
                block = b"%x\r\n" % (1 << 20) + bytes(1 << 20) + b"\r\n"
                while True:
                    self.wfile.write(block)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def send_disguised_chunked(self):
            self.send_header("Content-Length", str(len(body)))
            # Raw bytes: send_header writes Latin-1 text.
            if options.chunked_disguised == "mark":
                self._headers_buffer.append(b"Transfer-Encoding:\xcc\x81, chunked\r\n")
            else:
                self._headers_buffer.append(b"Transfer-Encoding: chunked\r\nHTTP/1.1: x\r\n")
            if options.signature:
                self.send_header("Navpolicy-Bundle-Signature", options.signature)
            self.end_headers()
            self.close_connection = True
            try:
                self.wfile.write(b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
