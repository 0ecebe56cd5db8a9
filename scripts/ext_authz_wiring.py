"""The Envoy ext_authz wiring of the shipped manifests, checked end to end (used by
check-deploy-manifests.py): what each Deployment's navpolicyd listens on, which Service port
reaches it, and, with --istio, that the mesh config's extensionProviders, the CUSTOM
AuthorizationPolicies, the NetworkPolicies and the header-removing EnvoyFilter name the same
things. A provider that targets a Service, port, protocol or path prefix no manifest serves
would make Istio deny every request (failOpen: false) or, worse, silently skip the check.
"""

import dataclasses
import pathlib

import yaml

# Listener kind -> (extAuthz key, serve flag that overrides it, mesh provider key, Istio protocol).
KINDS = {
    "http": ("listen", "--ext-authz-listen", "envoyExtAuthzHttp", "http"),
    "grpc": ("grpcListen", "--ext-authz-grpc-listen", "envoyExtAuthzGrpc", "grpc"),
}
HEADER_MUTATION = "type.googleapis.com/envoy.extensions.filters.http.header_mutation.v3.HeaderMutation"
EXT_AUTHZ_FILTER = "envoy.filters.http.ext_authz"


def configured_ext_authz(policy):
    """The extAuthz section as the JSON writes it (used when no binary is at hand)."""
    section = policy.get("extAuthz") or {}
    return {"listen": section.get("listen"), "grpcListen": section.get("grpcListen"),
            "pathPrefix": section.get("pathPrefix", "")}


def effective_ext_authz(validate_output):
    """The extAuthz line of `navpolicyd validate` ("extAuthz: listen=… grpcListen=… pathPrefix=…"):
    the values the daemon runs with, defaults included."""
    for line in validate_output.splitlines():
        if line.strip().startswith("extAuthz:"):
            fields = dict(item.split("=", 1) for item in line.split(":", 1)[1].split() if "=" in item)
            value = {key: (None if fields.get(key) in (None, "null") else fields[key]) for key in ("listen", "grpcListen")}
            value["pathPrefix"] = fields.get("pathPrefix", "").strip('"')
            return value
    return {"listen": None, "grpcListen": None, "pathPrefix": ""}


def split_address(address):
    """("host", port) of HOST:PORT or [V6]:PORT; port None when it is not a number."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port) if port.isdigit() else None


def is_loopback(host):
    return host == "localhost" or host.startswith("127.") or host == "::1"


@dataclasses.dataclass
class PodSet:
    """One Deployment's pods: labels, the navpolicyd container's ports, its ext_authz listeners."""
    path: pathlib.Path
    name: str
    labels: dict
    ports: list  # (name, number) of the serve container's containerPorts
    listeners: dict  # kind -> HOST:PORT or None
    path_prefix: str

    @classmethod
    def of(cls, path, deployment, settings):
        template = deployment.get("spec", {}).get("template", {})
        labels = template.get("metadata", {}).get("labels", {})
        name = deployment.get("metadata", {}).get("name", "?")
        for container in template.get("spec", {}).get("containers", []):
            arguments = [str(a) for a in container.get("command", []) + container.get("args", [])]
            if "serve" not in arguments:
                continue
            listeners = {}
            for kind, (key, flag, _, _) in KINDS.items():
                listeners[kind] = settings.get(key)
                if flag in arguments[:-1]:
                    listeners[kind] = arguments[arguments.index(flag) + 1]
            ports = [(p.get("name"), p.get("containerPort")) for p in container.get("ports", [])]
            return cls(path, name, labels, ports, listeners, settings.get("pathPrefix") or "")
        return cls(path, name, labels, [], {kind: None for kind in KINDS}, "")

    def selected_by(self, selector):
        return bool(selector) and selector.items() <= self.labels.items()

    def container_port(self, reference):
        """The number a Service targetPort or NetworkPolicy port (name or number) means here."""
        for name, number in self.ports:
            if str(reference) in (str(name), str(number)):
                return number
        return None

    def port_names(self, number):
        """Every spelling of containerPort `number` a port reference may use."""
        return {str(number)} | {str(name) for name, n in self.ports if n == number and name}

    def listener_ports(self):
        return {split_address(address)[1] for address in self.listeners.values() if address}


def service_ports_reaching(service, pod, number):
    """The Service's ports whose targetPort is containerPort `number` of `pod`."""
    if not pod.selected_by(service.get("spec", {}).get("selector", {})):
        return []
    return [p for p in service.get("spec", {}).get("ports", [])
            if pod.container_port(p.get("targetPort", p.get("port"))) == number]


def exposes_only_ext_authz(service, pods):
    """True when every port of the Service reaches an ext_authz listener in every pod it selects."""
    selector = service.get("spec", {}).get("selector", {})
    reached = [pod for pod in pods if pod.selected_by(selector)]
    ports = service.get("spec", {}).get("ports", [])
    return bool(reached) and bool(ports) and all(
        pod.container_port(p.get("targetPort", p.get("port"))) in pod.listener_ports() for pod in reached for p in ports)


def listener_findings(pods, services):
    """An ext_authz listener Envoy could not reach: on loopback, no containerPort, no Service port."""
    findings = []
    for pod in pods:
        for kind, address in pod.listeners.items():
            if not address:
                continue
            host, number = split_address(address)
            where = f"{pod.path}: Deployment {pod.name} ext_authz {kind} listener {address}"
            if is_loopback(host):
                findings.append(f"{where} is on loopback: nothing outside the pod reaches it (use 0.0.0.0)")
            if pod.container_port(number) is None:
                findings.append(f"{where} has no containerPort {number}")
            elif not any(service_ports_reaching(service, pod, number) for _, service in services):
                findings.append(f"{where}: no Service port targets it")
    return findings


def load_istio(directory):
    """(providers, CUSTOM policies, EnvoyFilters, DENY policies) of the Istio manifests in `directory`."""
    providers, customs, filters, denies = [], [], [], []
    for path in sorted(pathlib.Path(directory).glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if not isinstance(document, dict):
                continue
            kind = document.get("kind")
            if kind == "ConfigMap" and "mesh" in document.get("data", {}):
                mesh = yaml.safe_load(document["data"]["mesh"]) or {}
                providers += [(path, entry) for entry in mesh.get("extensionProviders", [])]
            elif kind == "AuthorizationPolicy" and document.get("spec", {}).get("action") == "CUSTOM":
                customs.append((path, document))
            elif kind == "AuthorizationPolicy" and document.get("spec", {}).get("action") == "DENY":
                denies.append((path, document))
            elif kind == "EnvoyFilter":
                filters.append((path, document))
    return providers, customs, filters, denies


def service_host(host):
    """(Service name, namespace) of NAME.NAMESPACE.svc[.cluster.local], Istio's [NS/]HOST form
    included; None for a host that is not a cluster Service."""
    labels = host.split("/")[-1].split(".")
    if len(labels) >= 3 and labels[2] == "svc":
        return labels[0], labels[1]
    return None


def declared_protocol(port):
    """The protocol Istio infers for a Service port: appProtocol, else the name's prefix."""
    return (port.get("appProtocol") or str(port.get("name", "")).split("-", 1)[0]).lower()


def workload(policy):
    """(namespace, labels) of the pods a CUSTOM AuthorizationPolicy covers."""
    metadata, spec = policy.get("metadata", {}), policy.get("spec", {})
    return metadata.get("namespace"), (spec.get("selector") or {}).get("matchLabels", {})


def peer_admits(peer, namespace, labels):
    """Whether a NetworkPolicy `from` entry admits every pod with `labels` in `namespace`."""
    if "ipBlock" in peer or "namespaceSelector" not in peer:
        return False  # an address range, or the policy's own namespace: not the mesh's callers
    namespaces = peer["namespaceSelector"].get("matchLabels", {})
    if namespaces and namespaces != {"kubernetes.io/metadata.name": namespace}:
        return False
    return (peer.get("podSelector") or {}).get("matchLabels", {}).items() <= labels.items()


def limits_ingress_of(network_policy, pod):
    """Whether the NetworkPolicy limits ingress to the pod (an empty podSelector selects every pod)."""
    spec = network_policy.get("spec", {})
    selector = (spec.get("podSelector") or {}).get("matchLabels", {})
    return "Ingress" in spec.get("policyTypes", ["Ingress"]) and selector.items() <= pod.labels.items()


def network_findings(pod, number, callers, network_policies):
    """The ext_authz port `number` of `pod`: admitted to every caller, to nothing without a `from`."""
    names = pod.port_names(number)
    rules = [rule for policy in network_policies if limits_ingress_of(policy, pod)
             for rule in policy.get("spec", {}).get("ingress", [])]
    where = f"{pod.path}: Deployment {pod.name} ext_authz port {number}"
    if not rules:
        return [f"{where}: no NetworkPolicy limits it, the whole cluster reaches it; admit the mesh's callers only"]
    admitting = [rule for rule in rules if not rule.get("ports") or {str(p.get("port")) for p in rule["ports"]} & names]
    findings = [f"{where} is admitted from anywhere by an ingress rule without `from`" for rule in admitting
                if not rule.get("from")]
    for name, (namespace, labels) in callers:
        if not any(peer_admits(peer, namespace, labels) for rule in admitting for peer in rule.get("from", [])):
            findings.append(f"{where}: no NetworkPolicy rule admits the workloads of AuthorizationPolicy {name} "
                            f"(namespace {namespace}, {labels}) that call it")
    return findings


def removal_findings(path, policy, filters):
    """A CUSTOM policy's workloads need an EnvoyFilter that removes client-sent x-navigation-*
    before ext_authz (header_mutation first, or just before the ext_authz filter)."""
    namespace, labels = workload(policy)
    name = policy.get("metadata", {}).get("name")
    contexts = {"SIDECAR_INBOUND", "ANY"} | ({"GATEWAY"} if "istio" in labels else set())
    for _, envoy_filter in filters:
        spec = envoy_filter.get("spec", {})
        if envoy_filter.get("metadata", {}).get("namespace") != namespace:
            continue
        if not (spec.get("workloadSelector") or {}).get("labels", {}).items() <= labels.items():
            continue
        for patch in spec.get("configPatches", []):
            match, change = patch.get("match", {}), patch.get("patch", {})
            sub_filter = match.get("listener", {}).get("filterChain", {}).get("filter", {}).get("subFilter", {})
            early = change.get("operation") == "INSERT_FIRST" or (
                change.get("operation") == "INSERT_BEFORE" and sub_filter.get("name") == EXT_AUTHZ_FILTER)
            config = change.get("value", {}).get("typed_config", {})
            removed = [m.get("remove") for m in config.get("mutations", {}).get("request_mutations", [])]
            if (patch.get("applyTo") == "HTTP_FILTER" and match.get("context", "ANY") in contexts and early
                    and config.get("@type") == HEADER_MUTATION and removed
                    and all(str(r).startswith("x-navigation-") for r in removed)):
                return []
    return [f"{path}: AuthorizationPolicy {name} sends {namespace} {labels} to navpolicyd, but no EnvoyFilter there "
            "removes the client's x-navigation-* headers before ext_authz (a header_mutation HTTP filter, "
            "INSERT_FIRST in SIDECAR_INBOUND): the app would read fields the client wrote"]


def known_host_findings(path, policy, denies):
    """A CUSTOM policy's workloads need a DENY policy refusing every Host but the app's
    (`notHosts`): the sidecar's inbound route takes any Host, and navpolicyd's host rules only
    hold for the hosts they name (a client would pick Host: evil.test and reach the same path)."""
    namespace, labels = workload(policy)
    name = policy.get("metadata", {}).get("name")
    for _, deny in denies:
        if deny.get("metadata", {}).get("namespace") != namespace:
            continue
        selector = (deny.get("spec", {}).get("selector") or {}).get("matchLabels", {})
        if not selector.items() <= labels.items():
            continue
        for rule in deny.get("spec", {}).get("rules", []):
            if rule.get("from") or rule.get("when"):
                continue  # conditions narrow the refusal to some callers only
            if any(operation.get("operation", {}).get("notHosts") for operation in rule.get("to", [])):
                return []
    return [f"{path}: AuthorizationPolicy {name} sends {namespace} {labels} to navpolicyd, but no DENY policy there "
            "refuses the Hosts the app does not serve (rules: - to: - operation: notHosts: [...]): a client could "
            "pick a Host no navpolicyd rule names and reach the same path"]


def istio_findings(directory, pods, services, network_policies):
    """The mesh config's providers against the manifests that are meant to serve them."""
    providers, customs, filters, denies = load_istio(directory)
    findings = [] if providers else [f"{directory}: no mesh config with extensionProviders"]
    for path, policy in customs:
        findings += removal_findings(path, policy, filters)
        findings += known_host_findings(path, policy, denies)
    for path, entry in providers:
        kinds = [kind for kind, (_, _, key, _) in KINDS.items() if key in entry]
        if len(kinds) != 1:
            continue  # check-istio.py reports a provider without exactly one ext_authz kind
        kind, provider = kinds[0], entry[KINDS[kinds[0]][2]]
        label = f"{path}: provider {entry.get('name')} ({KINDS[kind][2]} {provider.get('service')}:{provider.get('port')})"
        callers = [(p.get("metadata", {}).get("name"), workload(p)) for _, p in customs
                   if (p.get("spec", {}).get("provider") or {}).get("name") == entry.get("name")]
        target = service_host(str(provider.get("service", "")))
        if target is None:
            findings.append(f"{label}: not a Kubernetes Service host (NAME.NAMESPACE.svc.cluster.local)")
            continue
        matching = [(p, s) for p, s in services if s.get("metadata", {}).get("name") == target[0]
                    and s.get("metadata", {}).get("namespace") in (None, target[1])]
        if not matching:
            findings.append(f"{label}: targets Service {target[0]}, which no manifest creates")
        for service_path, service in matching:
            ports = [p for p in service.get("spec", {}).get("ports", []) if p.get("port") == provider.get("port")]
            if not ports:
                findings.append(f"{label}: Service {target[0]} ({service_path}) has no port {provider.get('port')}")
                continue
            wanted = KINDS[kind][3]
            if declared_protocol(ports[0]) != wanted:
                findings.append(f"{label}: Service port {ports[0].get('name')} is not declared {wanted} "
                                f"(appProtocol: {wanted}, or a name {wanted}-…): Istio would not speak it")
            reached = [pod for pod in pods if pod.selected_by(service.get("spec", {}).get("selector", {}))]
            if not reached:
                findings.append(f"{label}: Service {target[0]} ({service_path}) selects no navpolicyd pods")
            for pod in reached:
                number = pod.container_port(ports[0].get("targetPort", ports[0].get("port")))
                address = pod.listeners.get(kind)
                where = f"{label}: Deployment {pod.name} ({pod.path})"
                if not address:
                    findings.append(f"{where} does not turn the ext_authz {kind} listener on "
                                    f"(extAuthz.{KINDS[kind][0]} in its ConfigMap)")
                    continue
                if number != split_address(address)[1]:
                    findings.append(f"{where}: Service port {provider.get('port')} reaches containerPort {number}, "
                                    f"the listener is {address}")
                    continue
                if kind == "http" and provider.get("pathPrefix", "") != pod.path_prefix:
                    findings.append(f"{where}: pathPrefix {provider.get('pathPrefix', '')!r} is not the daemon's "
                                    f"extAuthz.pathPrefix {pod.path_prefix!r}: every check would be refused")
                findings += network_findings(pod, number, callers, network_policies)
    return findings
