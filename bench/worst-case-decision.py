#!/usr/bin/env python3
"""Writes the inputs of bench/worst-case-decision.sh into a directory.

Adversarial URLs (one file per kind, each a single URL so every timed decision is the worst
case), at the two sizes the HTTP layer accepts: 8 KB (the request-target limit, GET
/v1/decide?url=) and 32 KB (the longest URL, which a 64 KB POST /v1/decide body can carry). And the adversarial configs of
issue 26: 7 pathPrefixes, 2,000 `/*/secretN/*` patterns, 2,000 wildcard hosts, and one
handler holding 1,000 patterns of one index kind each (required segment, literal prefix,
literal end), plus the worst a handler's pattern index admits: every segment of the path is
a required segment of some pattern that then fails only at the path's end.

    bench/worst-case-decision.py OUTDIR
"""
import json
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

HOST = "https://app.example.com"


def fill(unit, size, head=HOST + "/", tail=""):
    count = max(1, (size - len(head) - len(tail)) // len(unit))
    return head + unit * count + tail


def urls(size):
    # Each kind targets one step: path normalization, prefix and pattern lookups, the host's
    # parent domains, query handling, escapes, dot segments.
    kinds = {
        "a-segments": fill("a/", size),
        "long-segment": fill("a", size),
        "escapes": fill("%61", size),
        "escaped-dots": fill("%2e%2e/a/", size),
        "dot-runs": fill("../", size),
        "semicolons": fill("a;b/", size),
        "empty-segments": fill("/", size),
        "secret-segments": HOST + "/" + "".join(f"secret{i}/" for i in range(size // 12))[: size - 40],
        "many-labels": fill("a.", size, head="https://", tail="h7.example/"),
        "long-query": fill("a=b&", size, head=HOST + "/search?"),
        "admin-deep": fill("a/", size, head=HOST + "/admin/"),
        # Every `/api/*xN*` pattern is a candidate (one index key) and none occurs.
        "api-filler": fill("a/", size, head=HOST + "/api/"),
    }
    kinds.update(idna_hosts(size))
    return kinds


def idna_hosts(size):
    """Hosts whose IDNA steps were quadratic (outside attack round 11): one letter and a run of
    combining marks of two alternating classes (canonical ordering), one label of distinct CJK
    scalars (Punycode encoding), and its Punycode with the scalars in falling order beside a
    non-ASCII label (only then is an `xn--` label decoded; each scalar is inserted at the
    front, and the label is encoded again). Sized in UTF-8 bytes, which the URL limit counts."""
    head, tail = "https://", ".example/"
    room = size - len(head) - len(tail)
    marks = "a" + "\u0316\u0301" * ((room - 1) // 4)
    distinct = "".join(chr(0x4E00 + i) for i in range(room // 3))
    falling = "".join(chr(0x9FFF - i) for i in range(min(20_000, room // 3)))
    beside = ".\u00fc"
    encoded = "xn--" + falling.encode("punycode").decode("ascii")
    while len(encoded) + len(beside.encode()) > room:
        falling = falling[: len(falling) * 9 // 10]
        encoded = "xn--" + falling.encode("punycode").decode("ascii")
    return {
        "idna-alternating-marks": head + marks + tail,
        "idna-distinct-cjk": head + distinct + tail,
        "idna-falling-punycode": head + encoded + beside + tail,
    }


# A short path: the cost of a handler's many patterns when nothing long is at stake.
with open(os.path.join(out, "url-short-home.txt"), "w") as handle:
    handle.write(HOST + "/home\n")

# A URL is at most 32 KiB (NavigationRequest.maximumURLLength): the longest one a 64 KiB
# POST /v1/decide body can carry.
for size, label in ((8 * 1024, "8k"), (32 * 1024, "32k")):
    for kind, url in urls(size).items():
        with open(os.path.join(out, f"url-{label}-{kind}.txt"), "w") as handle:
            handle.write(url[:size] + "\n")


def handler(name, match, kind="cancel"):
    return {"name": name, "type": kind, "match": match}


configs = {
    "adv-7-prefixes": {
        "handlers": [handler(f"p{i}", {"pathPrefixes": [f"/x{i}", f"/a/b{i}"]}) for i in range(7)]
        + [handler("allow", {"pathPrefixes": ["/" + "/".join(["z"] * 6)]}, "allow")]
    },
    "adv-2000-patterns": {
        # methods: every candidate is checked and passes, so nothing stops the scan early.
        "handlers": [handler(f"s{i}", {"pathPatterns": [f"/*/secret{i}/*"], "methods": ["POST"]}) for i in range(2000)]
    },
    "adv-2000-wildcard-hosts": {
        "handlers": [handler(f"w{i}", {"hosts": [f"*.h{i}.example", f"*.a.h{i}.example"]}) for i in range(2000)]
    },
    "adv-mixed-patterns": {
        "handlers": [handler(f"m{i}", {"pathPatterns": [f"/a*/b{i}*", f"/*{i}?x*/*"], "methods": ["POST"]}) for i in range(200)]
    },
    # One handler each (issue 26 item 4, F1): the chain index cannot help inside a handler.
    "adv-one-handler-1000-secret": {
        "handlers": [handler("s", {"pathPatterns": [f"/*/secret{i}/*" for i in range(1000)]})]
    },
    "adv-one-handler-1000-api": {"handlers": [handler("s", {"pathPatterns": [f"/api{i}/v?/*" for i in range(1000)]})]},
    "adv-one-handler-1000-suffix": {"handlers": [handler("s", {"pathPatterns": [f"/*a*b{i}" for i in range(1000)]})]},
    # The pattern index's worst case: with url-*-secret-segments, every segment offers a candidate
    # that fails only after searching the rest of the path for `/zz/`.
    "adv-one-handler-1000-secret-miss": {
        "handlers": [handler("s", {"pathPatterns": [f"/*/secret{i}/*/zz/*" for i in range(1000)]})]
    },
    # The second outside attack's finding: patterns sharing one index key (`/api`) were each
    # tried against the whole path, (patterns) x (path length). One automaton per chain now.
    "adv-one-handler-1000-shared-key": {
        "handlers": [handler("s", {"pathPatterns": [f"/api/*x{i}*" for i in range(1000)]})]
    },
    # The same across handlers: 2,000 candidates (every secretN segment is in the path) that
    # all fail late; each used to cost a pass over the path.
    "adv-2000-handlers-secret-miss": {
        "handlers": [handler(f"s{i}", {"pathPatterns": [f"/*/secret{i}/*/zz/*"]}) for i in range(2000)]
    },
    # The third outside attack: pieces that are suffixes of one another (`a`, `aa`, … `a×300`),
    # one per handler, against a path of `a`s: every byte ends 300 pieces. The automaton walks
    # only the pieces something waits for.
    "adv-300-handlers-suffix-chain": {
        "handlers": [handler(f"a{k}", {"pathPatterns": ["/*" + "a" * k + "*z"]}) for k in range(1, 301)]
    },
    # Issue 31: `urlPatterns` with distinct literal hosts and leading paths: the chain index
    # offers a request the few whose keys it has.
    "adv-2000-urlpatterns-keyed": {
        "handlers": [
            handler(f"u{i}", {"urlPatterns": [f"https://h{i}.example/*" if i % 2 else {"pathname": f"/p{i}/*"}]})
            for i in range(2000)
        ]
    },
    # Issue 31: 1,000 patterns sharing the request's host and a wildcard path (only the query
    # differs): no index key tells them apart, so each is a candidate; every component is fixed
    # text or ends in one `*`, matched without the regex engine (URLPatternFastPath).
    "adv-1000-urlpatterns-one-host": {
        "handlers": [
            handler(f"q{i}", {"urlPatterns": [{"hostname": "app.example.com", "pathname": "/*", "search": f"id={i}"}]})
            for i in range(1000)
        ]
    },
    # Issue 31, the outside attack's kind under the cap (250 states): each decision runs into the
    # per-decision regexp budget (50,000 steps) and fails closed; the worst an accepted config
    # makes a decision cost in regexp work. Two handlers, so both readings' work counts.
    "adv-urlpatterns-regexp-budget": {
        "handlers": [
            handler("dear", {"urlPatterns": [{"pathname": "/((?:.*a){55}b)"}, {"pathname": "/a/((?:.*a){55}b)"}]}),
            handler("dear-allow", {"urlPatterns": [{"pathname": "/((?:.*a){55}.*)"}]}, kind="allow"),
        ]
    },
}
# The configs the Kubernetes manifests ship (JSON inside a ConfigMap).
try:
    import yaml

    for manifest in ("deploy/kubernetes/configmap.yaml", "deploy/kubernetes/decision-only/configmap.yaml"):
        with open(manifest) as handle:
            for document in yaml.safe_load_all(handle):
                data = (document or {}).get("data", {})
                if "navpolicy.json" in data:
                    label = "shipped-" + manifest.replace("/", "-").removesuffix(".yaml")
                    with open(os.path.join(out, label + ".json"), "w") as target:
                        target.write(data["navpolicy.json"])
except ImportError:
    print("worst-case-decision.py: no PyYAML, the Kubernetes ConfigMaps are skipped", file=sys.stderr)

for name, config in configs.items():
    with open(os.path.join(out, f"config-{name}.json"), "w") as handle:
        json.dump(config, handle)
