#!/usr/bin/env python3
"""Brave's adblock-rust (PyPI `adblock`, its Python binding) on a host blocklist: the reference side
of bench/adblock-rust.sh.

Usage: adblock-rust.py load RULES_FILE [SERIALIZED_OUT]
       adblock-rust.py deserialize SERIALIZED_FILE
       adblock-rust.py decide SERIALIZED_FILE URLS_FILE REPEATS
       adblock-rust.py idle

`load` parses the `||host^` rules and builds an optimized engine (what a browser does at start);
`deserialize` loads the engine's own serialized form (what Brave does on later starts). Both print
the in-process seconds of that step as JSON; peak RSS is taken from outside (/usr/bin/time), and
`idle` is the same interpreter doing nothing, whose peak the script subtracts. `decide` checks each
URL as a document navigation and prints nanoseconds per check, with the per-call floor of the
binding (a trivial method of the same engine) measured alongside so the script can subtract it.
"""
import json
import sys
import time

import adblock


def load(rules_path: str, serialized_out: str | None) -> None:
    with open(rules_path, encoding="utf-8") as rules_file:
        text = rules_file.read()
    started = time.perf_counter()
    filters = adblock.FilterSet()
    filters.add_filter_list(text)
    engine = adblock.Engine(filter_set=filters, optimize=True)
    seconds = time.perf_counter() - started
    if serialized_out:
        engine.serialize_to_file(serialized_out)
    print(json.dumps({"loadSeconds": seconds}))


def deserialize(serialized_path: str) -> None:
    engine = adblock.Engine(filter_set=adblock.FilterSet())
    started = time.perf_counter()
    engine.deserialize_from_file(serialized_path)
    print(json.dumps({"loadSeconds": time.perf_counter() - started}))


def decide(serialized_path: str, urls_path: str, repeats: int) -> None:
    engine = adblock.Engine(filter_set=adblock.FilterSet())
    engine.deserialize_from_file(serialized_path)
    with open(urls_path, encoding="utf-8") as urls_file:
        urls = [line.strip() for line in urls_file if line.strip()]
    blocked = sum(engine.check_network_urls(url, url, "document").matched for url in urls)
    best_check = best_floor = float("inf")
    for _ in range(repeats):
        started = time.perf_counter_ns()
        for url in urls:
            engine.check_network_urls(url, url, "document")
        best_check = min(best_check, (time.perf_counter_ns() - started) / len(urls))
        started = time.perf_counter_ns()
        for url in urls:
            engine.tag_exists(url)
        best_floor = min(best_floor, (time.perf_counter_ns() - started) / len(urls))
    print(json.dumps({"urls": len(urls), "blocked": blocked, "checkNanoseconds": best_check,
                      "floorNanoseconds": best_floor}))


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "load" and len(sys.argv) in (3, 4):
        load(sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None)
    elif mode == "deserialize" and len(sys.argv) == 3:
        deserialize(sys.argv[2])
    elif mode == "decide" and len(sys.argv) == 5:
        decide(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif mode == "idle":
        print(json.dumps({}))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
