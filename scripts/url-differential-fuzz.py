#!/usr/bin/env python3
"""Differential fuzzing of navpolicyd's WHATWG URL parser against ada (PyPI `ada-url`).

Generates mutated http(s) URLs from a seed corpus of tricky inputs, canonicalizes them with
`navpolicyd canonicalize --ndjson` and with ada, and reports every disagreement: a different
href, or one parser failing where the other succeeds.

Contract with the binary: stdin gets one JSON string literal per line (the input URL); stdout
gets one JSON object per line, in the same order: {"input": ..., "href": ...} on success or
{"input": ..., "error": ...} on failure.

Usage:
    pip install ada-url
    scripts/url-differential-fuzz.py [--count N] [--seed S] [--binary PATH] [--show K]

Exit status: 0 no disagreement, 1 disagreements found, 2 setup/protocol error.
"""

import argparse
import json
import random
import re
import subprocess
import sys

try:
    import ada_url
except ImportError:  # pragma: no cover - environment problem, not a finding
    sys.stderr.write("error: the 'ada-url' package is required (pip install ada-url)\n")
    sys.exit(2)

# Seeds: each exercises one area of the parser the policy engine depends on.
SEEDS = [
    "https://www.example.com/account/logout?next=/home",
    "http://example.com/a/b/../c/./d?x=1#frag",
    "https://EXAMPLE.com:443/%2e%2E/secret",
    "http://example.com/foo/%2e%2e/bar/.%2E/baz",
    "https://example.com\\admin\\..\\panel",
    "http://user:pa%40ss@example.com:8080/p",
    "https://a@b@c.example/x",
    "http://:@example.com/",
    "http://0x7f.0.0.1/",
    "http://0177.1/",
    "http://2130706433/",
    "http://127.1/",
    "http://1.2.3.4.5/",
    "http://0x100000000/",
    "http://[::1]:80/",
    "http://[::ffff:127.0.0.1]/",
    "http://[1:0:0:2:0:0:0:3]/",
    "https://bücher.example/straße",
    "https://xn--bcher-kva.example/",
    "https://ÉXAMPLE.com/",
    "https://example。com/",
    "https://%65xample.com/",
    "https://ex%2Eample.com/",
    "https://faß.de/",
    "http://example.com:0080/",
    "https://example.com:/x",
    "http://exa\tmple.com/pa\nth",
    "  https://example.com/ \t",
    "https:example.com/x",
    "https:/example.com/x",
    "https:///example.com/x",
    "http://example.com/?q=a b&c='d'#h i",
    "http://example.com/p{a}t^h`|",
    "https://example.com/#frag`<>\"",
    "http://example.com/..%2f..%2fetc/passwd",
    "http://example.com/%C3%A9/%zz/%",
    "https://user@/path",
    "http://example.com./",
    "http://example..com/",
    "http://-example-.com/",
    "http://a.b.c.xn--pokxncvks/",
    "https://example.com/\u0000\u001f\u007f",
    "https://example.com:65535/",
    "http://\u05d0\u05d1.example/",
    "https://example.com:65536/",
]

# Mutation alphabet: delimiters, encodings, IPv4/IPv6 fragments, IDNA oddities, controls.
ALPHABET = [
    "/", "\\", ".", "..", "./", "../", "%", "%2e", "%2E", "%2f", "%5c", "%41", "%00", "%zz", "%c3%a9",
    "@", ":", "::", "[", "]", "?", "#", " ", "\t", "\n", "\r", "\x00", "\x1f", "\x7f",
    "ß", "é", "Ⅻ", "\u200d", "\u200c", "\u3002", "\uff0e", "\ufeff", "\u00ad", "xn--", "xn--a", "🐍",
    "\u05d0", "\u0627", "\u0661", "\u0301",  # Hebrew alef, Arabic alef, Arabic-Indic one, combining acute
    "0x", "0", "1", "7f", "08", "255", "256", "4294967295", "4294967296", "|", "^", "`", "{", "}",
    "\"", "'", "<", ">", "~", "A", "z", "-", "_", "C:", "c|", "http://", "https:", "//", "?#", "=", "&",
]


# Right-to-left scripts (Hebrew, Arabic and their presentation forms, etc.) make a domain a
# "Bidi domain name" for UTS #46 CheckBidi.
RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]|[\U00010800-\U00010fff]|[\U0001e800-\U0001efff]")


def mutate(rng, s):
    """Apply 1-4 random insert/delete/replace operations (code-point level)."""
    chars = list(s)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        pos = rng.randint(0, len(chars))
        if op < 0.5 or not chars:
            chars[pos:pos] = list(rng.choice(ALPHABET))
        elif op < 0.75:
            end = min(len(chars), pos + rng.randint(1, 3))
            del chars[pos:end]
        else:
            end = min(len(chars), pos + 1)
            chars[pos:end] = list(rng.choice(ALPHABET))
    return "".join(chars)


def generate(count, seed):
    rng = random.Random(seed)
    inputs = list(SEEDS)
    while len(inputs) < count:
        inputs.append(mutate(rng, rng.choice(SEEDS)))
    return inputs[:count]


def ada_href(s):
    """(href, None) on success, (None, reason) on failure."""
    try:
        return ada_url.URL(s).href, None
    except ValueError as e:
        return None, str(e) or "invalid URL"


def run_binary(binary, inputs):
    payload = "".join(json.dumps(s, ensure_ascii=True) + "\n" for s in inputs)
    try:
        proc = subprocess.run(
            [binary, "canonicalize", "--ndjson"],
            input=payload.encode("utf-8"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=600,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.stderr.write(f"error: could not run {binary}: {e}\n")
        sys.exit(2)
    if proc.returncode != 0:
        sys.stderr.write(f"error: {binary} exited with {proc.returncode}: {proc.stderr.decode(errors='replace')}\n")
        sys.exit(2)
    lines = proc.stdout.decode("utf-8", errors="replace").splitlines()
    if len(lines) != len(inputs):
        sys.stderr.write(f"error: sent {len(inputs)} lines, got {len(lines)} back\n")
        sys.exit(2)
    results = []
    for s, line in zip(inputs, lines):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            sys.stderr.write(f"error: malformed output line: {line!r}\n")
            sys.exit(2)
        if obj.get("input") != s:
            sys.stderr.write(f"error: output out of order: sent {s!r}, got {obj.get('input')!r}\n")
            sys.exit(2)
        results.append((obj.get("href"), obj.get("error")))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10000, help="number of inputs (seeds included)")
    ap.add_argument("--seed", type=int, default=1, help="PRNG seed (runs are reproducible)")
    ap.add_argument("--binary", default=".build/debug/navpolicyd", help="navpolicyd executable")
    ap.add_argument("--show", type=int, default=25, help="how many disagreements to print")
    args = ap.parse_args()

    inputs = generate(args.count, args.seed)
    ours = run_binary(args.binary, inputs)

    kinds = {"href mismatch": 0, "only navpolicyd fails": 0, "only ada fails": 0}
    shown = 0
    bidi_hints = 0
    for s, (href, err) in zip(inputs, ours):
        ada, ada_err = ada_href(s)
        if href is not None and ada is not None:
            if href == ada:
                continue
            kind, detail = "href mismatch", f"navpolicyd={href!r} ada={ada!r}"
        elif href is None and ada is None:
            continue
        elif href is None:
            kind, detail = "only navpolicyd fails", f"navpolicyd error={err!r} ada={ada!r}"
        else:
            kind, detail = "only ada fails", f"navpolicyd={href!r} ada error={ada_err!r}"
        kinds[kind] += 1
        if kind == "only navpolicyd fails" and "IDNA" in (err or "") and RTL.search(s):
            # navpolicyd (like Chrome) applies the RFC 5893 Bidi Rule (UTS #46 CheckBidi) to every label
            # of a domain that contains right-to-left characters; ada only checks some labels.
            detail += " [hint: CheckBidi on a domain with RTL characters]"
            bidi_hints += 1
        if shown < args.show:
            print(f"DISAGREE [{kind}] input={s!r}: {detail}")
            shown += 1

    total = sum(kinds.values())
    breakdown = ", ".join(f"{k}: {v}" for k, v in kinds.items())
    print(f"url-differential-fuzz: {len(inputs)} inputs (seed {args.seed}), {total} disagreements ({breakdown})"
          + (f"; {bidi_hints} of them are CheckBidi rejections of RTL domains" if bidi_hints else ""))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
