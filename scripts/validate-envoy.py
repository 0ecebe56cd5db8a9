#!/usr/bin/env python3
"""Checks Envoy bootstrap YAML files against Envoy's own API, strictly.

Each file is parsed into envoy.config.bootstrap.v3.Bootstrap with protobuf's json_format, the
way Envoy reads YAML: an unknown field, a wrong type or an enum value that does not exist
fails, and so does every typed_config whose "@type" names a message this API does not have,
or that holds a field that message lacks. The messages come from the PyPI package xds-protos
(generated from envoyproxy/data-plane-api); deploy-check installs it in a venv.

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


def check(path):
    with open(path, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    for url in set(type_urls(document)):
        if not import_package_of(url):
            return f"{path}: no API package defines {url}"
    try:
        json_format.ParseDict(document, bootstrap_pb2.Bootstrap(), ignore_unknown_fields=False)
    except json_format.ParseError as error:
        return f"{path}: {error}"
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
            print(f"ok      {path}: a valid envoy.config.bootstrap.v3.Bootstrap")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
