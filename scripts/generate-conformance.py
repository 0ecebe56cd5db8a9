#!/usr/bin/env python3
"""Generates config/conformance/*.json: language-neutral decision vectors any port of the engine
(an Android or web client, another language) must pass.

Usage: scripts/generate-conformance.py --binary .build/debug/navpolicyd [--check]

Each vector file holds a policy bundle (the exact bytes `navpolicyd bundle` writes, as a JSON
string) and requests with the decision the reference engine gives them. Requests come from
  - config/navpolicy.tests.json (the shipped policy's test table), and
  - the "Bypass attempts" table of docs/url-canonicalization.md (the hidden-trick classes),
decided against the default policy, plus host tricks (IPv4 forms, IPv4-mapped and NAT64 IPv6,
IDNA and Unicode hosts, trailing dots, userinfo, case) against a host-matching policy, and every
match form, shadow mode, a cancel default, custom actions and location templates against a policy
that uses them all (match-forms.json).
Expected decisions come from `navpolicyd check`; a request it refuses (exit 2) is expected to be
*cancelled* by a client ("invalidRequest": true), as docs/security.md requires.
--check regenerates into memory and exits 1 if any file differs (the suite runs this).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "config", "conformance")

HOSTS_POLICY = """{
  "defaultDecision": "allow",
  "handlers": [
    { "name": "loopback", "type": "cancel", "match": { "hosts": ["127.0.0.1", "[::1]", "localhost"] } },
    { "name": "books", "type": "cancel", "action": "block-idn", "match": { "hosts": ["xn--bcher-kva.example"] } },
    { "name": "payment", "type": "payment-redirect", "match": { "hosts": ["pay.example.com", "*.pay.example.com"] } }
  ]
}
"""

# (class, url): host spellings a port must canonicalize exactly as browsers do.
HOST_TRICKS = [
    ("ipv4-forms", "http://127.0.0.1/"),
    ("ipv4-forms", "http://0x7f.1/"),
    ("ipv4-forms", "http://2130706433/"),
    ("ipv4-forms", "http://0177.0.0.1/"),
    ("ipv4-forms", "http://127.1/"),
    ("ipv4-forms", "http://0x7F000001/"),
    ("ipv4-forms", "http://127.0.0.1./"),
    ("ipv4-forms", "http://0x100000000/"),
    ("ipv4-forms", "http://256.0.0.1/"),
    ("ipv4-mapped-ipv6", "http://[::ffff:127.0.0.1]/"),
    ("ipv4-mapped-ipv6", "http://[::ffff:7f00:1]/"),
    ("ipv4-mapped-ipv6", "http://[64:ff9b::127.0.0.1]/"),
    ("ipv4-mapped-ipv6", "http://[::127.0.0.1]/"),
    ("ipv6", "http://[0:0:0:0:0:0:0:1]/"),
    ("ipv6", "http://[::1/"),
    ("idna", "https://bücher.example/"),
    ("idna", "https://BÜCHER.example/"),
    ("idna", "https://xn--bcher-kva.example/"),
    ("idna", "https://bu\u0308cher.example/"),
    ("idna", "https://ｐａｙ.example.com/"),
    ("idna", "https://pay。example。com/"),
    ("idna", "https://pa\u200by.example.com/"),
    ("idna", "https://xn--/"),
    ("trailing-dot", "https://pay.example.com./"),
    ("trailing-dot", "http://localhost./"),
    ("case", "https://PAY.Example.COM/"),
    ("case", "HTTP://LOCALHOST/"),
    ("subdomain", "https://eu.pay.example.com/"),
    ("subdomain", "https://pay.example.com.evil.example/"),
    ("userinfo", "https://pay.example.com@evil.example/"),
    ("userinfo", "https://user:pw@127.0.0.1/"),
    ("userinfo", "https://evil.example\\@pay.example.com/"),
    ("percent-encoded-host", "https://%70ay.example.com/"),
    ("percent-encoded-host", "https://exa%20mple.com/"),
    ("backslashes", "https:\\\\pay.example.com\\x"),
    ("port", "https://pay.example.com:0443/"),
    ("port", "https://pay.example.com:65536/"),
]

HOST_CLASSES_POLICY = """{
  "defaultDecision": "allow",
  "handlers": [
    { "name": "internal", "type": "cancel", "action": "block", "match": { "hosts": ["@loopback", "10.0.0.0/8", "fd00::/8"] } },
    { "name": "metadata", "type": "cancel", "action": "block-metadata", "match": { "hosts": ["@link-local"] } },
    { "name": "private", "type": "cancel", "action": "block-private", "match": { "hosts": ["@private"] } },
    { "name": "get-admin", "type": "cancel", "action": "block-admin", "match": { "methods": ["GET"], "paths": ["/admin"] } },
    { "name": "help", "type": "payment-redirect", "match": { "hosts": ["help.example"] },
      "location": "HTTPS://Help.EXAMPLE.com:443/a/./b/../c/\u00fc?x={url}" }
  ]
}
"""

# (class, url, method): host classes and ranges (every spelling of loopback), GET covering HEAD,
# and locations emitted in serialized form.
HOST_CLASS_CASES = [
    ("loopback", "http://0.0.0.0/", "GET"),
    ("loopback", "http://0/", "GET"),
    ("loopback", "http://[::]/", "GET"),
    ("loopback", "http://foo.localhost/", "GET"),
    ("loopback", "http://a.b.localhost./", "GET"),
    ("loopback", "http://127.1.2.3/", "GET"),
    ("loopback", "http://localhost./", "GET"),
    ("loopback", "http://LOCALHOST/", "GET"),
    ("loopback", "http://[::ffff:127.0.0.1]/", "GET"),
    ("loopback", "http://[64:ff9b::7f00:1]/", "GET"),
    ("loopback", "http://0x7f.1/", "GET"),
    ("loopback", "http://2130706433/", "GET"),
    ("loopback", "http://[::1]/", "GET"),
    ("loopback", "myapp://127.0.0.1/x", "GET"),
    ("not-loopback", "http://localhost.example.com/", "GET"),
    ("not-loopback", "http://notlocalhost/", "GET"),
    ("not-loopback", "http://[::127.0.0.1]/", "GET"),
    ("not-loopback", "http://128.0.0.1/", "GET"),
    ("range", "http://10.1.2.3/", "GET"),
    ("range", "http://012.0.0.1/", "GET"),
    ("range", "http://[::ffff:10.0.0.1]/", "GET"),
    ("range", "http://[fd00::1]/", "GET"),
    ("range", "http://[fdab:1::2]/", "GET"),
    ("range", "http://11.0.0.1/", "GET"),
    ("link-local", "http://169.254.169.254/latest/meta-data/", "GET"),
    ("link-local", "http://[fe80::1]/", "GET"),
    ("private", "http://192.168.1.1/", "GET"),
    ("private", "http://172.16.0.1/", "GET"),
    ("private", "http://100.64.0.1/", "GET"),
    ("private", "http://[fc00::1]/", "GET"),
    ("private", "http://172.32.0.1/", "GET"),
    ("head-with-get", "https://app.example/admin", "HEAD"),
    ("head-with-get", "https://app.example/admin", "GET"),
    ("head-with-get", "https://app.example/admin", "POST"),
    ("serialized-location", "https://help.example/x?q=a b", "GET"),
]

MATCH_FORMS_POLICY = """{
  "defaultDecision": "cancel",
  "handlers": [
    { "name": "admin-rollout", "type": "cancel", "mode": "shadow", "action": "would-block", "match": { "pathPatterns": ["/admin/*"] } },
    { "name": "logout-form", "type": "logout", "match": { "methods": ["POST"], "navigationTypes": ["formSubmitted"], "paths": ["/session"] } },
    { "name": "reports-get", "type": "cancel", "action": "block-reports", "match": { "methods": ["GET"], "pathPrefixes": ["/reports"] } },
    { "name": "frame-scripts", "type": "cancel", "action": "block-frame-script", "match": { "schemes": ["javascript"], "targetFrames": ["sub"] } },
    { "name": "secret-exact", "type": "cancel", "action": "block-secret", "match": { "caseSensitive": true, "paths": ["/Secret"] } },
    { "name": "admin", "type": "cancel", "action": "block-admin", "match": { "pathPrefixes": ["/admin"] } },
    { "name": "downloads", "type": "cancel", "action": "block-download", "match": { "pathPatterns": ["/files/*.exe", "/v?/private/*"] } },
    { "name": "help", "type": "cancel", "action": "show-help", "match": { "hosts": ["help.example"] },
      "location": "https://support.example/article?from={url}" },
    { "name": "payment", "type": "payment-redirect", "match": { "hosts": ["pay.example", "*.pay.example"] },
      "location": "myapp://checkout?return={url}" },
    { "name": "internal", "type": "cancel", "action": "block-internal", "match": { "hosts": ["@loopback"] } },
    { "name": "about", "type": "about", "match": { "paths": ["/about"] } },
    { "name": "app", "type": "allow", "match": { "schemes": ["https"], "hosts": ["app.example", "*.app.example", "bücher.example", "support.example"] } },
    { "name": "app-links", "type": "allow", "match": { "schemes": ["myapp", "about"] } }
  ]
}
"""

# (class, url, method, navigationType, targetFrame): every match form, shadow mode, the cancel
# default, custom actions and location templates, each with the inputs ports get wrong.
MATCH_FORM_CASES = [
    ("pathPrefixes", "https://app.example/admin", "GET", "other", "main"),
    ("pathPrefixes", "https://app.example/admin/", "GET", "other", "main"),
    ("pathPrefixes", "https://app.example/admin/users", "GET", "other", "main"),
    ("pathPrefixes", "https://app.example/ADMIN//users/", "GET", "other", "main"),
    ("pathPrefixes", "https://app.example/administrator", "GET", "other", "main"),
    ("pathPrefixes", "https://app.example/%61dmin", "GET", "other", "main"),
    ("pathPrefixes", "https://app.example/x/../admin", "GET", "other", "main"),
    ("pathPrefixes", "https://app.example/admin;jsessionid=1", "GET", "other", "main"),
    ("encoded-slash", "https://app.example/admin%2Fusers", "GET", "other", "main"),
    ("encoded-slash", "https://app.example/x/..%2Fadmin", "GET", "other", "main"),
    ("encoded-slash", "https://app.example/public%2F..%2Fadmin", "GET", "other", "main"),
    ("encoded-slash", "https://app.example/api/group%2Fname", "GET", "other", "main"),
    ("pathPatterns", "https://app.example/files/setup.exe", "GET", "other", "main"),
    ("pathPatterns", "https://app.example/files/a/b/setup.exe", "GET", "other", "main"),
    ("pathPatterns", "https://app.example/files/setup.exe.txt", "GET", "other", "main"),
    ("pathPatterns", "https://app.example/FILES/SETUP.EXE", "GET", "other", "main"),
    ("pathPatterns", "https://app.example/v1/private/x", "GET", "other", "main"),
    ("pathPatterns", "https://app.example/v10/private/x", "GET", "other", "main"),
    ("pathPatterns", "https://app.example/files%2Fsetup.exe", "GET", "other", "main"),
    ("caseSensitive", "https://app.example/Secret", "GET", "other", "main"),
    ("caseSensitive", "https://app.example/secret", "GET", "other", "main"),
    ("caseSensitive", "https://app.example/SECRET", "GET", "other", "main"),
    ("caseSensitive", "https://app.example/%53ecret", "GET", "other", "main"),
    ("caseSensitive", "https://app.example/Secret/", "GET", "other", "main"),
    ("methods", "https://app.example/reports/1", "GET", "other", "main"),
    ("methods", "https://app.example/reports/1", "HEAD", "other", "main"),
    ("methods", "https://app.example/reports/1", "POST", "other", "main"),
    ("methods", "https://app.example/reports/1", "get", "other", "main"),
    ("navigationTypes", "https://app.example/session", "POST", "formSubmitted", "main"),
    ("navigationTypes", "https://app.example/session", "POST", "linkActivated", "main"),
    ("navigationTypes", "https://app.example/session", "GET", "formSubmitted", "main"),
    ("navigationTypes", "https://app.example/session", "POST", "formResubmitted", "main"),
    ("targetFrames", "javascript:alert(1)", "GET", "other", "sub"),
    ("targetFrames", "javascript:alert(1)", "GET", "other", "main"),
    ("schemes", "JavaScript:alert(1)", "GET", "linkActivated", "sub"),
    ("schemes", "http://app.example/", "GET", "other", "main"),
    ("schemes", "myapp://open/x", "GET", "other", "main"),
    ("schemes", "about:blank", "GET", "other", "sub"),
    ("shadow", "https://app.example/admin/users", "HEAD", "other", "main"),
    ("shadow", "https://app.example/reports/admin", "GET", "other", "main"),
    ("default-cancel", "https://unknown.example/", "GET", "other", "main"),
    ("default-cancel", "https://app.example.evil.example/", "GET", "other", "main"),
    ("trailing-dot", "https://app.example./home", "GET", "other", "main"),
    ("trailing-dot", "https://help.example./x", "GET", "other", "main"),
    ("idna", "https://BÜCHER.example/x", "GET", "other", "main"),
    ("idna", "https://xn--bcher-kva.example/x", "GET", "other", "main"),
    ("idna", "https://eu.ｐａｙ.example/x", "GET", "other", "main"),
    ("mapped-ipv6", "http://[::ffff:127.0.0.1]/admin", "GET", "other", "main"),
    ("mapped-ipv6", "http://[::ffff:127.0.0.1]/", "GET", "other", "main"),
    ("mapped-ipv6", "http://[::ffff:7f00:1]:8080/x", "GET", "other", "main"),
    ("custom-action", "https://help.example/billing?q=a b&x=1", "GET", "other", "main"),
    ("location-template", "https://pay.example/checkout?id=7#top", "GET", "other", "main"),
    ("location-template", "https://eu.pay.example/€", "GET", "other", "main"),
    ("about", "https://app.example/about", "GET", "other", "main"),
    ("about", "https://app.example/about/", "GET", "other", "main"),
    ("invalid", "https://app.example:99999/", "GET", "other", "main"),
]

# match.urlPatterns (issue 31): whole-URL strings and URLPatternInit objects, named groups, regexp
# groups, counted repetitions ({n}, {n,m}, {n,}: read as 0 by a 32-bit build once), a payment
# return on its query, deep links, and a cancel default.
URL_PATTERNS_POLICY = r"""
{
  "defaultDecision": "cancel",
  "handlers": [
    { "name": "payment-return", "type": "payment-redirect",
      "match": { "urlPatterns": [{ "hostname": "pay.example", "pathname": "/return", "search": "token=*" }] },
      "location": "myapp://checkout/done?return={url}" },
    { "name": "admin", "type": "cancel",
      "match": { "urlPatterns": ["https://{*.}?app.example/admin{/*}?"] } },
    { "name": "public", "type": "allow",
      "match": { "urlPatterns": [{ "pathname": "/public/*" }] } },
    { "name": "items", "type": "allow",
      "match": { "urlPatterns": ["https://app.example/item/:id(\\d+){/:tab}?"] } },
    { "name": "exact-case", "type": "allow",
      "match": { "urlPatterns": [{ "hostname": "docs.example", "pathname": "/Guide/*" }], "caseSensitive": true } },
    { "name": "deep-links", "type": "allow",
      "match": { "urlPatterns": [{ "protocol": "myapp", "hostname": "open", "pathname": "/*" }] } },
    { "name": "user-ids", "type": "cancel",
      "match": { "urlPatterns": [{ "hostname": "app.example", "pathname": "/user/(\\d{3})" }] } },
    { "name": "users", "type": "allow",
      "match": { "urlPatterns": [{ "hostname": "app.example", "pathname": "/user/*" }] } },
    { "name": "counted", "type": "allow",
      "match": { "urlPatterns": [{ "hostname": "app.example", "pathname": "/twice/(a{2})" },
                                 { "hostname": "app.example", "pathname": "/range/(a{1,2})" },
                                 { "hostname": "app.example", "pathname": "/atleast/(a{2,})" }] } }
  ]
}
"""

URL_PATTERN_CASES = [
    ("payment", "https://pay.example/return?token=abc"),
    ("payment", "https://pay.example/return?other=1"),
    ("payment", "https://PAY.example./return?token=abc"),
    ("payment", "https://pay.example/return/?token=abc"),
    ("payment", "http://pay.example/return?token=abc"),
    ("admin", "https://app.example/admin"),
    ("admin", "https://app.example/admin/"),
    ("admin", "https://app.example/admin/users"),
    ("admin", "https://eu.app.example/ADMIN/users"),
    ("admin", "https://app.example/%61dmin/users"),
    ("admin", "https://app.example/admin;jsessionid=1/users"),
    ("admin", "https://app.example/administrator"),
    ("admin", "http://app.example/admin"),
    ("fail-closed", "https://app.example/public/..;/admin/users"),
    ("fail-closed", "https://app.example/public/..%2Fadmin"),
    ("fail-closed", "https://app.example/public/x/../../admin"),
    ("public", "https://app.example/public/app.js"),
    ("public", "https://cdn.example/PUBLIC/app.js"),
    ("public", "https://cdn.example/public"),
    ("groups", "https://app.example/item/42"),
    ("groups", "https://app.example/item/42/reviews"),
    ("groups", "https://app.example/item/42/reviews/all"),
    ("groups", "https://app.example/item/x"),
    ("groups", "https://app.example/item/%34%32"),
    ("caseSensitive", "https://docs.example/Guide/intro"),
    ("caseSensitive", "https://docs.example/guide/intro"),
    ("caseSensitive", "https://docs.example/%47uide/intro"),
    ("deep-link", "myapp://open/item/7"),
    ("deep-link", "MYAPP://open/item/7"),
    ("deep-link", "myapp://other/item/7"),
    ("counted", "https://app.example/user/123"),
    ("counted", "https://app.example/user/12"),
    ("counted", "https://app.example/user/1234"),
    ("counted", "https://app.example/user/"),
    ("counted", "https://app.example/twice/aa"),
    ("counted", "https://app.example/twice/"),
    ("counted", "https://app.example/twice/aaa"),
    ("counted", "https://app.example/range/a"),
    ("counted", "https://app.example/range/aa"),
    ("counted", "https://app.example/range/aaa"),
    ("counted", "https://app.example/atleast/a"),
    ("counted", "https://app.example/atleast/aaaa"),
    ("default-cancel", "https://unknown.example/"),
    ("default-cancel", "javascript:alert(1)"),
    ("invalid", "https://app.example:99999/admin"),
]

PLACEHOLDERS = {"<TAB>": "\t", "<US>": "\x1f", "<SP>": " ", "<ZWSP>": "\u200b"}


def bypass_table():
    """(trick, input) rows of the "Bypass attempts" table in docs/url-canonicalization.md."""
    rows = []
    with open(os.path.join(ROOT, "docs", "url-canonicalization.md"), encoding="utf-8") as file:
        inside = False
        for line in file:
            if line.startswith("## Bypass attempts"):
                inside = True
                continue
            if inside and line.startswith("## "):
                break
            if not inside or not line.startswith("| ") or line.startswith("| Trick") or line.startswith("|---"):
                continue
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            match = re.fullmatch(r"`(.*)`", cells[1])
            if not match:
                continue
            url = match.group(1)
            for placeholder, value in PLACEHOLDERS.items():
                url = url.replace(placeholder, value)
            rows.append((cells[0].replace("`", ""), url))
    if not rows:
        sys.exit("generate-conformance: no rows found in the Bypass attempts table")
    return rows


def decide(binary, config, request):
    arguments = [binary, "check", "--config", config, "--format", "json"]
    if request.get("method", "GET") != "GET":
        arguments += ["--method", request["method"]]
    if request.get("navigationType", "other") != "other":
        arguments += ["--navigation-type", request["navigationType"]]
    if request.get("targetFrame", "main") != "main":
        arguments += ["--target-frame", request["targetFrame"]]
    arguments += ["--", request["url"]]
    result = subprocess.run(arguments, capture_output=True)
    if result.returncode == 2:
        return {"decision": "cancel", "invalidRequest": True}
    if result.returncode != 0:
        sys.exit(f"generate-conformance: {arguments} exited {result.returncode}: {result.stderr!r}")
    decision = json.loads(result.stdout)
    expect = {key: decision[key] for key in ("decision", "handler", "action", "location", "url")}
    if "shadow" in decision:
        expect["shadow"] = decision["shadow"]
    return expect


# A fixed stamp keeps the files reproducible (the bundle's issuedAt is otherwise "now"); issued
# on 2100-01-01 for one year, so the vectors' bundles never expire under a client that refuses
# expired bundles. Ports check expiry against expiresAt only, as NavigationPolicyClient does.
FIXED_STAMP = ["--issued-at", "4102444800", "--lifetime", "31536000", "--policy-version", "1"]


def bundle(binary, config):
    result = subprocess.run([binary, "bundle", "--config", config] + FIXED_STAMP, capture_output=True, check=True)
    return result.stdout.decode("utf-8")


def request_of(case):
    request = {"url": case["url"]}
    for key, default in (("method", "GET"), ("navigationType", "other"), ("targetFrame", "main")):
        request[key] = case.get(key, default)
    return request


def vector(binary, name, description, config, cases):
    out = {
        "format": "navpolicy-conformance",
        "version": 1,
        "name": name,
        "description": description,
        "bundle": bundle(binary, config),
        "cases": [],
    }
    for case_class, case_name, request in cases:
        out["cases"].append(
            {"name": case_name, "class": case_class, "request": request, "expect": decide(binary, config, request)})
    return json.dumps(out, ensure_ascii=False, indent=1) + "\n"


def generate(binary):
    files = {}
    default_config = os.path.join(ROOT, "config", "navpolicy.json")
    with open(os.path.join(ROOT, "config", "navpolicy.tests.json"), encoding="utf-8") as file:
        table = json.load(file)
    cases = [("policy-test", case["name"], request_of(case)) for case in table]
    cases += [("bypass", trick, request_of({"url": url})) for trick, url in bypass_table()]
    files["default.json"] = vector(
        binary, "default", "config/navpolicy.json: its test table and the URL bypass classes", default_config, cases)
    with tempfile.TemporaryDirectory() as directory:
        hosts_config = os.path.join(directory, "hosts.json")
        with open(hosts_config, "w", encoding="utf-8") as file:
            file.write(HOSTS_POLICY)
        host_cases = [(case_class, url, request_of({"url": url})) for case_class, url in HOST_TRICKS]
        files["hosts.json"] = vector(
            binary, "hosts", "host matching: IPv4 forms, IPv4 in IPv6, IDNA, trailing dots, userinfo, case",
            hosts_config, host_cases)
        classes_config = os.path.join(directory, "host-classes.json")
        with open(classes_config, "w", encoding="utf-8") as file:
            file.write(HOST_CLASSES_POLICY)
        class_cases = [
            (case_class, f"{method} {url}" if method != "GET" else url, request_of({"url": url, "method": method}))
            for case_class, url, method in HOST_CLASS_CASES
        ]
        files["host-classes.json"] = vector(
            binary, "host-classes",
            "host ranges and @classes (every spelling of loopback), GET covering HEAD, serialized locations",
            classes_config, class_cases)
        forms_config = os.path.join(directory, "match-forms.json")
        with open(forms_config, "w", encoding="utf-8") as file:
            file.write(MATCH_FORMS_POLICY)
        form_cases = []
        for case_class, url, method, navigation_type, target_frame in MATCH_FORM_CASES:
            request = {"url": url, "method": method, "navigationType": navigation_type, "targetFrame": target_frame}
            label = " ".join(
                [method] * (method != "GET") + [navigation_type] * (navigation_type != "other")
                + [f"in {target_frame} frame"] * (target_frame != "main") + [url])
            form_cases.append((case_class, label, request))
        files["match-forms.json"] = vector(
            binary, "match-forms",
            "every match form (paths, pathPrefixes, pathPatterns, schemes, methods, navigationTypes, targetFrames, "
            "caseSensitive), shadow mode, a cancel default, custom actions and location templates",
            forms_config, form_cases)
        patterns_config = os.path.join(directory, "url-patterns.json")
        with open(patterns_config, "w", encoding="utf-8") as file:
            file.write(URL_PATTERNS_POLICY)
        pattern_cases = [(case_class, url, request_of({"url": url})) for case_class, url in URL_PATTERN_CASES]
        files["url-patterns.json"] = vector(
            binary, "url-patterns",
            "match.urlPatterns: whole-URL strings and URLPatternInit objects, groups, a query, deep links, "
            "case, and the standard-form reading that cancels",
            patterns_config, pattern_cases)
    return files


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--check", action="store_true")
    options = parser.parse_args()
    files = generate(options.binary)
    stale = []
    for name, text in files.items():
        path = os.path.join(OUT, name)
        if options.check:
            try:
                with open(path, encoding="utf-8") as file:
                    if file.read() != text:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
        else:
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
    if stale:
        print("config/conformance is out of date: " + ", ".join(stale)
              + "; run make conformance-vectors", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
