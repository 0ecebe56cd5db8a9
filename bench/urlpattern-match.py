"""The Rust side of bench/urlpattern-vs-rust.sh: the `urlpattern` wheel (PyO3 over the Rust crate
denoland/rust-urlpattern) called from Python, URLPattern.test(url) per call.

  python urlpattern-match.py ITERATIONS REPEATS < cases.json

Prints the same lines as bench/urlpattern-match.swift (name, input, matched, ns per call of
each repeat) and, per case, a line whose input is "(floor)": test("x") on the same pattern,
a call that converts its argument and returns at once (the input is not a URL), which is
what a call costs Python and the binding before the crate matches anything.
"""
import json
import sys
import timeit

import urlpattern

iterations, repeats = int(sys.argv[1]), int(sys.argv[2])
for case in json.load(sys.stdin)["cases"]:
    pattern = urlpattern.URLPattern(*case["pattern"])
    for url in ["x"] + case["inputs"]:
        timer = timeit.Timer("test(url)", globals={"test": pattern.test, "url": url})
        timer.timeit(min(iterations, 1_000))  # warm-up, as on the Swift side
        per_call = [total / iterations * 1e9 for total in timer.repeat(repeats, iterations)]
        label = "(floor)" if url == "x" else url
        print(f"{case['name']}\t{label}\t{pattern.test(url)}\t{','.join(f'{v:.1f}' for v in per_call)}", flush=True)
