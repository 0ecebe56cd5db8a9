#!/usr/bin/env python3
"""Generates navpolicyd configs of a given size and a URL corpus that exercises them.

Usage: generate-rules.py HANDLERS OUT_CONFIG OUT_URLS [--host-list | --url-patterns]

The chain mixes the shapes real policies have: exact hosts (partner allow-lists), `*.`
wildcards (block-lists of domains), exact app routes and route prefixes, plus the default
policy's logout/about/payment handlers first. With --host-list, one handler holds
HANDLERS hosts instead (a phishing block-list as a single rule). URLs are half hits spread
over the whole chain (so late positions are exercised) and half misses. With --url-patterns,
every handler after the default three has only `match.urlPatterns` (issue 31): a fixed host,
a `*.` host, or any host with a fixed leading path, each distinct.
"""
import json
import random
import sys


def main() -> None:
    count = int(sys.argv[1])
    config_path, urls_path = sys.argv[2], sys.argv[3]
    host_list = "--host-list" in sys.argv[4:]
    url_patterns = "--url-patterns" in sys.argv[4:]
    rng = random.Random(count)

    handlers = [
        {"name": "logout", "type": "logout", "match": {"paths": ["/logout", "/sign_out"]}},
        {"name": "about", "type": "about", "match": {"paths": ["/about"]}},
        {"name": "payment", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]},
         "location": "https://checkout.example.com/open?target={url}"},
    ]
    hits = []
    if host_list:
        hosts = [f"phish{i}.example" for i in range(count)]
        handlers.append({"name": "phishing", "type": "cancel", "action": "block", "match": {"hosts": hosts}})
        hits = [f"https://{rng.choice(hosts)}/login" for _ in range(500)]
    elif url_patterns:
        for i in range(max(0, count - len(handlers))):
            kind = i % 3
            if kind == 0:
                pattern, hit = f"https://partner{i}.example/*", f"https://partner{i}.example/landing"
            elif kind == 1:
                pattern, hit = f"https://*.blocked{i}.example/*", f"https://www.blocked{i}.example/"
            else:
                pattern, hit = {"pathname": f"/section{i}/:page", "search": "*"}, f"https://app.example.com/section{i}/page?x=1"
            handlers.append({"name": f"h{i}", "type": "cancel", "match": {"urlPatterns": [pattern]}})
            hits.append(hit)
        # 500 hits at every size (drawn with repeats from a short chain): a match costs more
        # than a miss, so the corpus must not get cheaper as the chain gets shorter.
        hits = [rng.choice(hits) for _ in range(500)]
    else:
        for i in range(max(0, count - len(handlers))):
            kind = i % 4
            if kind == 0:
                match, hit = {"hosts": [f"partner{i}.example"]}, f"https://partner{i}.example/landing"
                handler_type = "allow"
            elif kind == 1:
                match, hit = {"hosts": [f"*.blocked{i}.example"]}, f"https://www.blocked{i}.example/"
                handler_type = "cancel"
            elif kind == 2:
                match, hit = {"paths": [f"/route{i}"], "navigationTypes": ["linkActivated", "other"]}, f"https://app.example.com/route{i}"
                handler_type = "about"
            else:
                match, hit = {"pathPrefixes": [f"/section{i}"]}, f"https://app.example.com/section{i}/page?x=1"
                handler_type = "cancel"
            handlers.append({"name": f"h{i}", "type": handler_type, "match": match})
            hits.append(hit)
        hits = rng.sample(hits, min(500, len(hits))) + ["https://app.example.com/logout", "https://pay.example.com/c"]
    misses = [f"https://site{rng.randrange(10**6)}.example.net/a/b?q={i}" for i in range(500)]
    urls = hits + misses
    rng.shuffle(urls)

    with open(config_path, "w") as handle:
        json.dump({"defaultDecision": "allow", "handlers": handlers}, handle)
    with open(urls_path, "w") as handle:
        handle.write("\n".join(urls) + "\n")


if __name__ == "__main__":
    main()
