#!/usr/bin/env python3
"""Generates a blocklist-scale config (issue 33) and a URL corpus that exercises it.

Usage: generate-blocklist.py HOSTS PREFIXES OUT_CONFIG OUT_URLS

One handler holds HOSTS host names (a tenth of them `*.` wildcards), one holds PREFIXES path
prefixes, behind the default policy's logout/about/payment handlers. URLs are half hits spread
over both lists and half misses.
"""
import json
import random
import sys


def main() -> None:
    host_count, prefix_count = int(sys.argv[1]), int(sys.argv[2])
    config_path, urls_path = sys.argv[3], sys.argv[4]
    rng = random.Random(host_count + prefix_count)
    hosts = [(f"*.zone{i}.example" if i % 10 == 0 else f"site{i}.example") for i in range(host_count)]
    prefixes = [f"/section{i}/private" for i in range(prefix_count)]
    config = {
        "defaultDecision": "allow",
        "handlers": [
            {"name": "logout", "type": "logout", "match": {"paths": ["/logout", "/sign_out"]}},
            {"name": "about", "type": "about", "match": {"paths": ["/about"]}},
            {"name": "payment", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]},
             "location": "https://checkout.example.com/open?target={url}"},
            {"name": "blocklist", "type": "cancel", "match": {"hosts": hosts}},
            {"name": "private-sections", "type": "cancel", "match": {"pathPrefixes": prefixes}},
        ],
    }
    with open(config_path, "w") as out:
        json.dump(config, out, separators=(",", ":"))
    urls = []
    for _ in range(500):
        i = rng.randrange(host_count)
        urls.append(f"https://a.zone{i}.example/" if i % 10 == 0 else f"https://site{i}.example/home")
        urls.append(f"https://app.example.com/section{rng.randrange(prefix_count)}/private/page")
        urls.append(f"https://miss{rng.randrange(10**6)}.example/section/x")
        urls.append(f"https://app.example.com/home/{rng.randrange(1000)}")
    with open(urls_path, "w") as out:
        out.write("\n".join(urls) + "\n")


if __name__ == "__main__":
    main()
