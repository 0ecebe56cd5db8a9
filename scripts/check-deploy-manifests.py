#!/usr/bin/env python3
"""Checks what the Kubernetes schema cannot: that the shipped manifests run navpolicyd safely.

Usage: check-deploy-manifests.py [--navpolicyd BINARY] DIR
Reads every *.yaml under DIR (recursively) and reports, one line each, exit 1 if any:
- a Secret that carries a value (data/stringData): tokens are created by hand, never shipped;
- NAVPOLICY_ADMIN_TOKEN taken from an optional Secret (the pod would start without auth);
- a Deployment whose pods run share intake on SQLite (the ConfigMap's intake.enabled is not
  false and neither NAVPOLICY_INTAKE_DATABASE_URL nor a postgresql:// intake.database selects
  PostgreSQL) with more than one replica, a strategy other than Recreate, or a data volume that is not a
  PersistentVolumeClaim: each replica would have its own SQLite file behind one Service;
- a Service whose selector reaches pods with intake on and pods with intake off;
- a Deployment that runs an admin listener (--admin-listen) on pods no NetworkPolicy limits:
  some ingress rule must name the admin port, and every rule that admits it needs a `from`;
- a navpolicyd Deployment without --admin-listen (probes, metrics, /v1/policy, reload and diff
  would sit on the port the Service exposes), or whose probes are not readiness GET /readyz and
  liveness GET /healthz on the admin port: /readyz/intake as a pod probe would take decision
  capacity out of the Service whenever the intake store is away;
- a Service that exposes the admin port of the pods it selects;
- a ConfigMap navpolicy.json that `navpolicyd validate` rejects (with --navpolicyd);
- an ext_authz listener (extAuthz.listen / grpcListen as `navpolicyd validate` reports them, or
  --ext-authz-listen / --ext-authz-grpc-listen) on loopback, without a containerPort, or on no
  Service port: Envoy could not reach it;
- with --istio DIR, the mesh wiring (scripts/ext_authz_wiring.py): every Service and port an
  extensionProvider names exists, reaches pods whose ext_authz listener of that kind listens
  there, speaks the provider's protocol and path prefix; the NetworkPolicy admits the CUSTOM
  AuthorizationPolicies' workloads to those ports and nothing else does; an EnvoyFilter removes
  client-sent x-navigation-* on those workloads before ext_authz.
Needs PyYAML (Debian: python3-yaml).
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

import yaml

import ext_authz_wiring as wiring


def load(directory):
    documents = []
    for path in sorted(pathlib.Path(directory).rglob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if isinstance(document, dict):
                documents.append((path, document))
    return documents


def name_of(document):
    return document.get("metadata", {}).get("name", "?")


def probe_findings(path, name, container, admin_ports):
    """The daemon's probes: decision readiness and liveness, on the admin listener."""
    if not admin_ports:
        return [f"{path}: Deployment {name} runs navpolicyd serve without --admin-listen: probes, metrics, "
                "/v1/policy, reload and diff would sit on the port its Service exposes"]
    found = []
    for probe, wanted in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        get = container.get(probe, {}).get("httpGet")
        if not get:
            found.append(f"{path}: Deployment {name} has no {probe} httpGet {wanted}")
            continue
        if get.get("path") != wanted:
            why = (" (intake readiness: an intake store outage would take the pod's decisions out of the Service)"
                   if get.get("path", "").startswith("/readyz/intake") else "")
            found.append(f"{path}: Deployment {name} {probe} is {get.get('path')}, not {wanted}{why}")
        if str(get.get("port")) not in admin_ports:
            found.append(f"{path}: Deployment {name} {probe} is on port {get.get('port')}, not the admin listener")
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--navpolicyd")
    parser.add_argument("--istio", help="deploy/istio: check the mesh config's providers against these manifests")
    parser.add_argument("directory")
    arguments = parser.parse_args()
    documents = load(arguments.directory)
    findings = []
    policies = {}  # ConfigMap name -> parsed navpolicy.json
    ext_authz = {}  # ConfigMap name -> the extAuthz settings in effect (the binary's, with --navpolicyd)

    for path, document in documents:
        kind = document.get("kind")
        if kind == "Secret" and (document.get("data") or document.get("stringData")):
            findings.append(f"{path}: Secret {name_of(document)} ships a value; create it with kubectl instead")
        if kind == "ConfigMap" and "navpolicy.json" in document.get("data", {}):
            text = document["data"]["navpolicy.json"]
            try:
                policies[name_of(document)] = json.loads(text)
            except json.JSONDecodeError as error:
                findings.append(f"{path}: ConfigMap {name_of(document)} navpolicy.json is not JSON: {error}")
                continue
            ext_authz[name_of(document)] = wiring.configured_ext_authz(policies[name_of(document)])
            if arguments.navpolicyd:
                with tempfile.NamedTemporaryFile("w", suffix=".json") as config:
                    config.write(text)
                    config.flush()
                    result = subprocess.run(
                        [arguments.navpolicyd, "validate", "--config", config.name], capture_output=True, text=True)
                if result.returncode != 0:
                    findings.append(
                        f"{path}: ConfigMap {name_of(document)} navpolicy.json fails navpolicyd validate: "
                        + (result.stdout + result.stderr).strip().replace("\n", " | "))
                else:
                    # What the daemon itself turns on, not what this script reads into the JSON.
                    ext_authz[name_of(document)] = wiring.effective_ext_authz(result.stdout)

    pod_sets = []  # (labels, intake enabled, deployment name, admin port names and numbers)
    ext_authz_pods = []  # wiring.PodSet per Deployment: what its ext_authz listeners and ports are
    admin_pods = []  # (path, deployment name, pod labels, admin port names and numbers)
    for path, document in documents:
        if document.get("kind") != "Deployment":
            continue
        name = name_of(document)
        spec = document.get("spec", {})
        pod = spec.get("template", {}).get("spec", {})
        volumes = {volume.get("name"): volume for volume in pod.get("volumes", [])}
        policy_maps = [v["configMap"]["name"] for v in volumes.values() if "configMap" in v]
        intake_on = True
        shared_store = False  # PostgreSQL: replicas share one store, the SQLite rules do not apply
        for map_name in policy_maps:
            policy = policies.get(map_name)
            if policy is None:
                findings.append(f"{path}: Deployment {name} mounts ConfigMap {map_name}, which is not in {arguments.directory}")
            elif policy.get("intake", {}).get("enabled", True) is False:
                intake_on = False
            elif str(policy.get("intake", {}).get("database", "")).lower().startswith(("postgresql://", "postgres://")):
                shared_store = True
        pod_admin_ports = set()
        for container in pod.get("containers", []):
            arguments_of = [str(a) for a in container.get("args", []) + container.get("command", [])]
            if "--admin-listen" in arguments_of:
                listen = arguments_of[arguments_of.index("--admin-listen") + 1:][:1]
                ports = {p.get("name") for p in container.get("ports", []) if p.get("name") == "admin"}
                ports |= {listen[0].rsplit(":", 1)[-1]} if listen else set()
                pod_admin_ports |= ports
                admin_pods.append((path, name, spec.get("template", {}).get("metadata", {}).get("labels", {}), ports))
            if "serve" in arguments_of:
                container_admin = ports if "--admin-listen" in arguments_of else set()
                findings.extend(probe_findings(path, name, container, container_admin))
            for variable in container.get("env", []):
                reference = variable.get("valueFrom", {}).get("secretKeyRef")
                if variable.get("name") == "NAVPOLICY_ADMIN_TOKEN" and reference and reference.get("optional"):
                    findings.append(f"{path}: Deployment {name} starts without NAVPOLICY_ADMIN_TOKEN (optional: true)")
                if variable.get("name") == "NAVPOLICY_INTAKE_DATABASE_URL":
                    if variable.get("value"):
                        findings.append(f"{path}: Deployment {name} puts the database URL (and password) in the manifest; use a Secret")
                    elif reference and not reference.get("optional"):
                        shared_store = True
        pod_sets.append((spec.get("template", {}).get("metadata", {}).get("labels", {}), intake_on, name, pod_admin_ports))
        settings = [ext_authz[m] for m in policy_maps if m in ext_authz]
        ext_authz_pods.append(wiring.PodSet.of(path, document, settings[0] if settings else {}))
        if intake_on and not shared_store:
            if spec.get("replicas", 1) != 1:
                findings.append(
                    f"{path}: Deployment {name} runs share intake with {spec.get('replicas')} replicas, each with its "
                    "own SQLite file; use 1 replica, or intake.enabled false in its ConfigMap")
            if spec.get("strategy", {}).get("type") != "Recreate":
                findings.append(f"{path}: Deployment {name} runs share intake without strategy Recreate (two pods, one database)")
            data = [v for v in volumes.values() if v.get("name") == "data"]
            if not data or "persistentVolumeClaim" not in data[0]:
                findings.append(f"{path}: Deployment {name} runs share intake without a PersistentVolumeClaim for its data")

    for path, document in documents:
        if document.get("kind") != "Service":
            continue
        selector = document.get("spec", {}).get("selector", {})
        reached = [(on, name, admin) for labels, on, name, admin in pod_sets if selector.items() <= labels.items()]
        # A Service of ext_authz ports only serves decisions: pods with and without intake
        # answer them alike, so it may reach both (ext-authz-service.yaml does).
        decisions_only = wiring.exposes_only_ext_authz(document, ext_authz_pods)
        if len({on for on, _, _ in reached}) > 1 and not decisions_only:
            findings.append(
                f"{path}: Service {name_of(document)} selects pods with and without intake: {sorted(n for _, n, _ in reached)}")
        admin_ports = set().union(*(admin for _, _, admin in reached)) if reached else set()
        for port in document.get("spec", {}).get("ports", []):
            if {str(port.get("targetPort", port.get("port"))), str(port.get("name"))} & admin_ports:
                findings.append(
                    f"{path}: Service {name_of(document)} exposes the admin port ({port.get('name')}): probes, metrics, "
                    "/v1/policy, reload and diff belong to the kubelet and Prometheus, not the Service")

    policies_in = [d for _, d in documents if d.get("kind") == "NetworkPolicy"]
    for path, name, labels, admin_ports in admin_pods:
        limited = False
        for policy in policies_in:
            spec = policy.get("spec", {})
            if not spec.get("podSelector", {}).get("matchLabels", {}).items() <= labels.items():
                continue
            if "Ingress" not in spec.get("policyTypes", ["Ingress"]):
                continue
            rules = spec.get("ingress", [])
            admitting = [r for r in rules if not r.get("ports") or {str(p.get("port")) for p in r["ports"]} & admin_ports]
            named = any({str(p.get("port")) for p in r.get("ports", [])} & admin_ports for r in rules)
            if named and all(r.get("from") for r in admitting):
                limited = True
        if not limited:
            findings.append(
                f"{path}: Deployment {name} runs an admin listener that no NetworkPolicy limits to the kubelet and "
                "Prometheus (add one like networkpolicy.yaml)")

    services = [(path, document) for path, document in documents if document.get("kind") == "Service"]
    findings += wiring.listener_findings(ext_authz_pods, services)
    if arguments.istio:
        findings += wiring.istio_findings(
            arguments.istio, ext_authz_pods, services, [d for _, d in documents if d.get("kind") == "NetworkPolicy"])

    for finding in findings:
        print(finding)
    print(f"{len(documents)} manifests checked, {len(findings)} findings", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
