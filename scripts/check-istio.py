#!/usr/bin/env python3
"""Checks deploy/istio: the AuthorizationPolicy and the EnvoyFilter against Istio's CRD schemas,
strictly, and the mesh config's providers against the policy.

- AuthorizationPolicy (security.istio.io/v1) and EnvoyFilter (networking.istio.io/v1alpha3):
  parsed with the models that the PyPI package cloudcoil-models-istio generates from Istio's CRD
  schemas; a wrong type or enum value fails, and so does a field the schema lacks (the models
  would drop it silently, so the document is compared with what they kept). The Envoy
  configuration inside an EnvoyFilter patch is free-form to Istio: scripts/validate-envoy.py
  parses it with Envoy's API.
- Whether the providers' Service, ports and path prefix are what deploy/kubernetes serves, the
  NetworkPolicies and the header removal: scripts/check-deploy-manifests.py --istio.
- Mesh config (the "istio" ConfigMap): kubernetes-validate checks it as a ConfigMap; here its
  "mesh" YAML must parse, every extensionProviders entry must have exactly one of
  envoyExtAuthzHttp / envoyExtAuthzGrpc, and the provider a CUSTOM policy names must exist. The
  MeshConfig fields themselves have no schema installable here (istioctl validate has one).

Usage: scripts/check-istio.py DIRECTORY   (exit 1 when something is wrong)
"""
import pathlib
import sys

import yaml
from cloudcoil.models.istio.networking.v1alpha3 import EnvoyFilter
from cloudcoil.models.istio.security.v1 import AuthorizationPolicy

MODELS = {"AuthorizationPolicy": AuthorizationPolicy, "EnvoyFilter": EnvoyFilter}


def dropped(sent, kept, where):
    """Paths present in `sent` but missing from `kept`: fields the schema does not know."""
    if isinstance(sent, dict):
        kept = kept if isinstance(kept, dict) else {}
        for key, value in sent.items():
            if key not in kept:
                yield f"{where}.{key}"
            else:
                yield from dropped(value, kept[key], f"{where}.{key}")
    elif isinstance(sent, list):
        kept = kept if isinstance(kept, list) else []
        for index, value in enumerate(sent):
            yield from dropped(value, kept[index] if index < len(kept) else None, f"{where}[{index}]")


def main(directory):
    problems = []
    providers = {}
    named = []
    filters = 0
    for path in sorted(pathlib.Path(directory).glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            kind = document.get("kind")
            if kind in MODELS:
                try:
                    model = MODELS[kind].model_validate(document)
                except Exception as error:  # pydantic's ValidationError lists every field
                    problems.append(f"{path}: {error}")
                    continue
                kept = model.model_dump(by_alias=True, exclude_unset=True, mode="json")
                problems += [f"{path}: unknown field {field}" for field in dropped(document, kept, kind)]
                spec = document.get("spec", {})
                if kind == "EnvoyFilter":
                    filters += 1
                elif spec.get("action") == "CUSTOM":
                    named.append((path, (spec.get("provider") or {}).get("name")))
            elif kind == "ConfigMap" and "mesh" in document.get("data", {}):
                mesh = yaml.safe_load(document["data"]["mesh"]) or {}
                for entry in mesh.get("extensionProviders", []):
                    kinds = [key for key in ("envoyExtAuthzHttp", "envoyExtAuthzGrpc") if key in entry]
                    if len(kinds) != 1 or not entry.get("name"):
                        problems.append(f"{path}: provider {entry.get('name')!r} needs a name and one ext_authz kind")
                    providers[entry.get("name")] = kinds
            else:
                problems.append(f"{path}: unexpected document kind {kind!r}")
    for path, name in named:
        if name not in providers:
            problems.append(f"{path}: CUSTOM provider {name!r} is not in the mesh config's extensionProviders")
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"ok      {directory}: {len(named)} CUSTOM policy, {filters} EnvoyFilter, providers {sorted(providers)}")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
