#!/usr/bin/env python3
"""Writes a synthetic navpolicyd decision log (one JSON object per line) for `navpolicyd diff`.

Usage: bench/generate-decision-log.py LINES > decisions.ndjson
The lines have the daemon's fields (time, decisionId, request, decision, handler, revision);
URLs cycle through logout/about/payment/admin/ordinary pages on a few hosts.
"""
import json
import sys

lines = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
hosts = ["app.example.com", "pay.example.com", "www.example.org", "cdn.example.net"]
paths = ["/", "/logout", "/sign_out", "/about", "/admin/users", "/api/v2/items", "/account/settings", "/help"]
types = ["linkActivated", "other", "formSubmitted", "reload"]
out = sys.stdout
for i in range(lines):
    url = "https://%s%s?n=%d" % (hosts[i % len(hosts)], paths[(i // 4) % len(paths)], i % 997)
    request = {"url": url, "method": "GET", "navigationType": types[i % len(types)], "targetFrame": "main",
               "sourceURL": None}
    line = {"time": "2026-12-01T00:00:00Z", "decisionId": "d%08d" % i, "request": request,
            "decision": {"decision": "allow", "handler": None, "action": None, "location": None, "url": url},
            "handler": None, "revision": "sha256:" + "0" * 64}
    out.write(json.dumps(line, separators=(",", ":")) + "\n")
