#!/usr/bin/env python3
"""Checks Envoy bootstrap YAML files against Envoy's own API, strictly.

Each file is parsed into envoy.config.bootstrap.v3.Bootstrap with protobuf's json_format, the
way Envoy reads YAML: an unknown field, a wrong type or an enum value that does not exist
fails, and so does every typed_config whose "@type" names a message this API does not have,
or that holds a field that message lacks. The messages come from the PyPI package xds-protos
(generated from envoyproxy/data-plane-api); deploy-check installs it in a venv.

An Istio EnvoyFilter (kind: EnvoyFilter) is checked the same way where Envoy reads it: each
HTTP_FILTER patch value is parsed into envoy.extensions.filters.network.http_connection_manager.v3
.HttpFilter, the message Istio hands to Envoy (Istio's own CRD schema leaves it free-form;
scripts/check-istio.py checks the rest of the document).

Also checked: the edge rule (edge_findings): every virtual host that routes to a cluster names
its hosts, and a "*" virtual host refuses the rest with a direct 4xx/5xx, so navpolicyd never
decides a Host the app was not meant to serve while the app serves the path anyway.

Not checked: Envoy's protoc-gen-validate rules (required fields, ranges) and anything only a
running Envoy knows (that a cluster named in a route exists, that an address can be bound).

Usage: scripts/validate-envoy.py FILE.yaml...   (exit 1 when a file is invalid)
"""
import importlib
import pkgutil
import sys

import yaml
from google.protobuf import json_format

from envoy.config.bootstrap.v3 import bootstrap_pb2
from envoy.extensions.filters.network.http_connection_manager.v3 import http_connection_manager_pb2

# The Envoy message an EnvoyFilter patch value is, by applyTo (the kinds deploy/istio uses).
PATCH_MESSAGES = {"HTTP_FILTER": http_connection_manager_pb2.HttpFilter}


def type_urls(value):
    """Every "@type" in the document, so the packages defining them can be imported."""
    if isinstance(value, dict):
        if isinstance(value.get("@type"), str):
            yield value["@type"]
        for child in value.values():
            yield from type_urls(child)
    elif isinstance(value, list):
        for child in value:
            yield from type_urls(child)


def import_package_of(type_url):
    """Imports the generated modules of the package that defines the message (json_format
    resolves "@type" through the default descriptor pool, which only holds imported files)."""
    full_name = type_url.rsplit("/", 1)[-1]
    package = full_name.rsplit(".", 1)[0]
    try:
        module = importlib.import_module(package)
    except ImportError:
        return False
    for info in pkgutil.iter_modules(module.__path__):
        if info.name.endswith("_pb2"):
            importlib.import_module(package + "." + info.name)
    return True


def route_configs(value):
    """Every route_config in the document (inside the connection managers)."""
    if isinstance(value, dict):
        if isinstance(value.get("route_config"), dict):
            yield value["route_config"]
        for child in value.values():
            yield from route_configs(child)
    elif isinstance(value, list):
        for child in value:
            yield from route_configs(child)


def edge_findings(document):
    """The edge rule navpolicyd's decisions rest on: the Host decided is a host the app is meant
    to serve. A virtual host that sends requests to a cluster must name its hosts (a "*" domain
    lets a client pick a Host no rule names and still reach the app), and every other Host must
    get a non-2xx direct_response (421, as deploy/nginx's default_server)."""
    findings = []
    for config in route_configs(document):
        hosts = config.get("virtual_hosts", [])
        catch_all = False
        for host in hosts:
            routes = host.get("routes", [])
            forwards = any("route" in route for route in routes)
            wildcard = any(domain == "*" or domain.startswith("*:") for domain in host.get("domains", []))
            if forwards and wildcard:
                findings.append(f"virtual host {host.get('name')!r} sends every Host to the app (domains {host.get('domains')})")
            if wildcard and not forwards and routes and all(
                    400 <= route.get("direct_response", {}).get("status", 0) < 600 for route in routes):
                catch_all = True
        if hosts and not catch_all:
            findings.append(f"route_config {config.get('name')!r} has no '*' virtual host refusing unknown hosts (421)")
    return findings


def check(path):
    with open(path, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    for url in set(type_urls(document)):
        if not import_package_of(url):
            return f"{path}: no API package defines {url}"
    if isinstance(document, dict) and document.get("kind") == "EnvoyFilter":
        parts = [(PATCH_MESSAGES.get(patch.get("applyTo")), patch.get("patch", {}).get("value"), f"configPatches[{index}]")
                 for index, patch in enumerate(document.get("spec", {}).get("configPatches", []))]
    else:
        parts = [(bootstrap_pb2.Bootstrap, document, "bootstrap")]
    for message, value, where in parts:
        if message is None:
            return f"{path}: {where}: no Envoy message known for this applyTo"
        try:
            json_format.ParseDict(value, message(), ignore_unknown_fields=False)
        except json_format.ParseError as error:
            return f"{path}: {where}: {error}"
    findings = edge_findings(document)
    if findings:
        return f"{path}: " + "; ".join(findings)
    return None


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    failures = [message for message in map(check, paths) if message]
    for message in failures:
        print(message, file=sys.stderr)
    for path in paths:
        if not any(message.startswith(path + ":") for message in failures):
            print(f"ok      {path}: valid Envoy configuration (Bootstrap, or an EnvoyFilter's HttpFilter), edge rule held")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
