#!/usr/bin/env python3
"""A TLS origin that reads only the record layer, for the CONNECT tunnel framing tests (issue 38).

Usage: tls-record-origin.py --log FILE [--retry] [--before-retry alert|hello-request] [--second-retry]
                            [--attack two-retries|hello-then-retry|split-retry]
Prints "listening PORT" on stdout once bound to 127.0.0.1. It reads each connection as a TLS
origin's record layer does — records, handshake messages reassembled across records — with no
cryptography, and appends to --log, per connection number N:
  ACCEPT N                 a TCP connection
  RECORD N TYPE LENGTH     each whole record received (TYPE decimal: 20 CCS, 22 handshake, 23 data)
  HELLO N sni=NAME         each ClientHello as the origin reads it ("-" without a server name)
  PARTIAL N BYTES          the connection ended inside a record (bytes of it received)
  END N                    the connection ended
It answers the first ClientHello with a HelloRetryRequest (--retry; followed by a
ChangeCipherSpec record, as servers do) or a ServerHello, a second ClientHello with a
ServerHello, and echoes every application-data record after that (so a relay can be seen to
work). Scripted attacks on the proxy's reading of its answers (issue 38, F3; each implies
--retry): --before-retry sends a warning alert (unrecognized_name) or a TLS 1.2 HelloRequest
record before the HelloRetryRequest; --second-retry answers the second ClientHello with
another HelloRetryRequest (and only a third with a ServerHello). --attack answers the first
two ClientHellos as a colluding origin would to slip a third past a proxy that reads only the
first message of an answer's first record: two retries in one record (two-retries); a retry,
then a ServerHello and a retry in one record (hello-then-retry); a retry split over two
records whose second starts with 0x02, then a second retry (split-retry). What it logs is what a real
origin would act on: a test compares it with what the proxy let through.
"""
import argparse
import os
import socket
import struct
import threading

BEFORE_RETRY = {
    "alert": b"\x15\x03\x03\x00\x02\x01\x70",
    "hello-request": b"\x16\x03\x03\x00\x04\x00\x00\x00\x00",
}
CHANGE_CIPHER_SPEC = b"\x14\x03\x03\x00\x01\x01"
RETRY_RANDOM = bytes.fromhex("CF21AD74E59A6111BE1D8C021E65B891C2A211167ABB8C5E079E09E2C8A8339C")
lock = threading.Lock()


def record(body, kind=22):
    return bytes([kind]) + b"\x03\x03" + struct.pack(">H", len(body)) + body


def hello_message(random, cookie=b""):
    """A TLS 1.3 ServerHello (a HelloRetryRequest with RETRY_RANDOM): version, random, empty
    session id, TLS_AES_128_GCM_SHA256, no compression, supported_versions (and a cookie)."""
    extensions = b"\x00\x2b\x00\x02\x03\x04"
    if cookie:
        extensions += b"\x00\x2c" + struct.pack(">HH", len(cookie) + 2, len(cookie)) + cookie
    body = b"\x03\x03" + random + b"\x00\x13\x01\x00" + struct.pack(">H", len(extensions)) + extensions
    return b"\x02" + len(body).to_bytes(3, "big") + body


def server_hello(random):
    return record(hello_message(random))


def split_retry():
    """A HelloRetryRequest in two records, the second starting inside its cookie with 0x02 and
    long enough to be read as a ServerHello by a proxy that looks only at a record's first message."""
    message = hello_message(RETRY_RANDOM, cookie=b"\x02" + b"\x5a" * 59)
    cut = len(message) - 60
    return record(message[:cut]) + record(message[cut:])


# --attack: what the origin answers to hello 1, 2, 3 (a colluding origin, each letting the
# client's third hello, naming any host, through a proxy that reads only the first message).
ATTACKS = {
    "two-retries": lambda: [record(hello_message(RETRY_RANDOM) * 2) + CHANGE_CIPHER_SPEC, server_hello(os.urandom(32))],
    "hello-then-retry": lambda: [
        server_hello(RETRY_RANDOM) + CHANGE_CIPHER_SPEC,
        record(hello_message(os.urandom(32)) + hello_message(RETRY_RANDOM)),
    ],
    "split-retry": lambda: [split_retry() + CHANGE_CIPHER_SPEC, server_hello(RETRY_RANDOM)],
}


def server_name(body):
    """The host_name of a ClientHello body, "-" without one, "?" when malformed."""
    try:
        at = 34
        at += 1 + body[at]
        at += 2 + struct.unpack(">H", body[at:at + 2])[0]
        at += 1 + body[at]
        if at >= len(body):
            return "-"
        end = at + 2 + struct.unpack(">H", body[at:at + 2])[0]
        at += 2
        while at < end:
            kind, length = struct.unpack(">HH", body[at:at + 4])
            data = body[at + 4:at + 4 + length]
            at += 4 + length
            if kind == 0:
                name_length = struct.unpack(">H", data[3:5])[0]
                return data[5:5 + name_length].decode("ascii", "replace")
        return "-"
    except (IndexError, struct.error):
        return "?"


def serve(conn, number, log, args):
    def say(event, detail=""):
        with lock, open(log, "a") as out:
            out.write("%s %d%s\n" % (event, number, detail))

    say("ACCEPT")
    pending = b""
    handshake = b""
    hellos = 0
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            pending += chunk
            while len(pending) >= 5:
                kind, length = pending[0], struct.unpack(">H", pending[3:5])[0]
                if len(pending) < 5 + length:
                    break
                body, pending = pending[5:5 + length], pending[5 + length:]
                say("RECORD", " %d %d" % (kind, length))
                if kind == 23 and hellos >= 1:
                    conn.sendall(b"\x17\x03\x03" + struct.pack(">H", length) + body)
                if kind != 22:
                    continue
                handshake += body
                while len(handshake) >= 4 and len(handshake) >= 4 + int.from_bytes(handshake[1:4], "big"):
                    size = int.from_bytes(handshake[1:4], "big")
                    message, handshake = handshake[:4 + size], handshake[4 + size:]
                    if message[0] != 1:
                        continue
                    hellos += 1
                    say("HELLO", " sni=%s" % server_name(message[4:]))
                    if args.attack:
                        answers = ATTACKS[args.attack]()
                        conn.sendall(answers[hellos - 1] if hellos <= len(answers) else server_hello(os.urandom(32)))
                    elif hellos == 1 and args.retry:
                        before = BEFORE_RETRY.get(args.before_retry, b"")
                        conn.sendall(before + server_hello(RETRY_RANDOM) + CHANGE_CIPHER_SPEC)
                    elif hellos == 2 and args.second_retry:
                        conn.sendall(server_hello(RETRY_RANDOM))
                    else:
                        conn.sendall(server_hello(os.urandom(32)))
    except OSError:
        pass
    finally:
        if pending:
            say("PARTIAL", " %d" % len(pending))
        say("END")
        conn.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--retry", action="store_true")
    parser.add_argument("--before-retry", choices=sorted(BEFORE_RETRY))
    parser.add_argument("--second-retry", action="store_true")
    parser.add_argument("--attack", choices=sorted(ATTACKS))
    args = parser.parse_args()
    args.retry = args.retry or args.before_retry is not None or args.second_retry
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print("listening %d" % listener.getsockname()[1], flush=True)
    number = 0
    while True:
        conn, _ = listener.accept()
        number += 1
        threading.Thread(target=serve, args=(conn, number, args.log, args), daemon=True).start()


if __name__ == "__main__":
    main()
