import Foundation
import PolicyService
import TestScratchSupport
import TestSelection
import Testing

/// deploy/istio and deploy/kubernetes shipped as one (issue 38, item 5): what the mesh config's
/// `extensionProviders` name — a Service, its ports and protocols, a path prefix — is what the
/// manifests create and what the real daemon, loaded with the shipped ConfigMap, serves; the
/// NetworkPolicies admit the CUSTOM policy's workloads; client-sent `x-navigation-*` is removed
/// before the check, by exactly the names navpolicyd answers with.
@Suite("Istio deploy files (live)", .tags(.live))
struct IstioDeployLiveTests {
    static let istio = BinaryRunner.packageRoot.appendingPathComponent("deploy/istio")

    /// The YAML documents of `file` as JSON values; a document's `data.mesh` (the mesh config,
    /// YAML inside a string) is parsed too. PyYAML, as scripts/check-deploy-manifests.py uses.
    static func documents(_ file: URL) throws -> [[String: Any]] {
        let script = """
            import json, sys, yaml
            documents = [d for d in yaml.safe_load_all(open(sys.argv[1], encoding="utf-8")) if isinstance(d, dict)]
            for d in documents:
                if isinstance(d.get("data", {}).get("mesh"), str):
                    d["data"]["mesh"] = yaml.safe_load(d["data"]["mesh"])
            json.dump(documents, sys.stdout)
            """
        let result = try BinaryRunner.run(
            ["-c", script, file.path], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        try #require(result.status == 0, "\(file.lastPathComponent): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    /// Every name a header_mutation filter in `file` removes from the request, lower-cased.
    static func removedHeaders(_ file: URL) throws -> Set<String> {
        var removed = Set<String>()
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if (object["@type"] as? String)?.hasSuffix(".header_mutation.v3.HeaderMutation") == true,
                    let mutations = (object["mutations"] as? [String: Any])?["request_mutations"] as? [[String: Any]]
                {
                    removed.formUnion(mutations.compactMap { ($0["remove"] as? String)?.lowercased() })
                }
                object.values.forEach(walk)
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        try documents(file).forEach(walk)
        return removed
    }

    /// The mesh config's provider `name`, its ext_authz settings (`envoyExtAuthzHttp`, …).
    static func provider(_ name: String, kind: String) throws -> [String: Any] {
        let mesh = try #require(
            try documents(istio.appendingPathComponent("mesh-config.yaml")).first?["data"] as? [String: Any])
        let providers = try #require((mesh["mesh"] as? [String: Any])?["extensionProviders"] as? [[String: Any]])
        let entry = try #require(providers.first { $0["name"] as? String == name }, "no provider \(name)")
        return try #require(entry[kind] as? [String: Any], "\(name) is not \(kind)")
    }

    @Test("the mesh config names a Service, ports, protocols and a prefix the manifests and the daemon serve")
    func meshProvidersAreServed() throws {
        let result = try DeployManifestTests.check(DeployManifestTests.manifests, istio: Self.istio)
        #expect(result.status == 0, "\(result.findings.joined(separator: "\n"))")
        #expect(result.findings.isEmpty)
    }

    @Test("the wiring check refuses each way the mesh could miss navpolicyd or let a client's fields through")
    func wiringCheckCatchesTheBrokenShapes() throws {
        let copy = try DeployManifestTests.editedCopy([
            // The listener on the pod's loopback, and a prefix the mesh does not send.
            "configmap.yaml": {
                $0.replacingOccurrences(of: #""listen": "0.0.0.0:9191""#, with: #""listen": "127.0.0.1:9191""#)
                    .replacingOccurrences(of: #""pathPrefix": "/authz""#, with: #""pathPrefix": "/check""#)
            },
            // The gRPC port not declared gRPC: Istio would speak HTTP/1.1 to an h2c service.
            "ext-authz-service.yaml": {
                $0.replacingOccurrences(of: "name: grpc-ext-authz", with: "name: tcp-ext-authz")
                    .replacingOccurrences(of: "appProtocol: grpc", with: "appProtocol: tcp")
            },
            // The mesh's callers not admitted, and the ext_authz ports open to the cluster.
            "decision-only/networkpolicy.yaml": {
                $0.replacingOccurrences(of: "kubernetes.io/metadata.name: web", with: "kubernetes.io/metadata.name: other")
            },
            "postgres/networkpolicy.yaml": {
                $0.replacingOccurrences(of: "        - port: http\n", with: "        - port: http\n        - port: ext-authz\n")
            },
            // A listener turned on without a containerPort.
            "deployment.yaml": {
                $0.replacingOccurrences(of: "            - name: ext-authz-grpc\n              containerPort: 9192\n", with: "")
            },
        ])
        let istio = TestScratch.url.appendingPathComponent("navpolicyd-istio-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.istio, to: istio)
        try FileManager.default.removeItem(at: istio.appendingPathComponent("remove-client-navigation-headers.yaml"))
        // Only the CUSTOM policy left: the sidecar would take any Host (attack of round 4, F1).
        let policies = istio.appendingPathComponent("authorization-policy.yaml")
        let policyText = try String(contentsOf: policies, encoding: .utf8)
        let custom = try #require(policyText.components(separatedBy: "\n---\n").first)
        try (custom + "\n").write(to: policies, atomically: true, encoding: .utf8)

        let result = try DeployManifestTests.check(copy, istio: istio)
        #expect(result.status == 1)
        let expected = [
            "ext_authz http listener 127.0.0.1:9191 is on loopback",
            "pathPrefix '/authz' is not the daemon's extAuthz.pathPrefix '/check'",
            "Service port tcp-ext-authz is not declared grpc",
            "Deployment navpolicyd-decide ext_authz port 9191: no NetworkPolicy rule admits the workloads",
            "Deployment navpolicyd-shared ext_authz port 9191 is admitted from anywhere",
            "Deployment navpolicyd ext_authz grpc listener 0.0.0.0:9192 has no containerPort 9192",
            "removes the client's x-navigation-* headers before ext_authz",
            "no DENY policy there refuses the Hosts the app does not serve",
        ]
        for text in expected {
            #expect(result.findings.contains { $0.contains(text) }, "no finding \"\(text)\" in \(result.findings)")
        }

        // The Service the providers name, gone: the shape that shipped before.
        let noService = try DeployManifestTests.editedCopy([:])
        try FileManager.default.removeItem(at: noService.appendingPathComponent("ext-authz-service.yaml"))
        let missing = try DeployManifestTests.check(noService, istio: Self.istio)
        #expect(missing.status == 1)
        #expect(
            missing.findings.filter { $0.contains("targets Service navpolicyd-ext-authz, which no manifest creates") }
                .count == 2, "\(missing.findings)")
    }

    @Test("the EnvoyFilter and both Envoy bootstraps remove exactly the fields navpolicyd answers with")
    func removedHeadersAreTheCodesList() throws {
        let fields = Set(EnforcementHeaders.all.map { $0.lowercased() })
        #expect(fields.count == EnforcementHeaders.all.count && fields.allSatisfy { $0.hasPrefix("x-navigation-") })
        let files = [
            "deploy/istio/remove-client-navigation-headers.yaml", "deploy/envoy/envoy-ext-authz-http.yaml",
            "deploy/envoy/envoy-ext-authz-grpc.yaml",
        ]
        for file in files {
            let url = BinaryRunner.packageRoot.appendingPathComponent(file)
            try #require(FileManager.default.fileExists(atPath: url.path), "\(file) is not shipped")
            let removed = try Self.removedHeaders(url)
            #expect(removed == fields, "\(file): missing \(fields.subtracting(removed)), extra \(removed.subtracting(fields))")
        }
    }

    @Test("the daemon loaded with the shipped ConfigMap answers what navpolicyd-http sends, in the fields it forwards")
    func shippedConfigMapAnswersTheMeshProvider() throws {
        let configMaps = try Self.documents(DeployManifestTests.manifests.appendingPathComponent("configmap.yaml"))
        let config = try #require((configMaps.first?["data"] as? [String: Any])?["navpolicy.json"] as? String)
        let http = try Self.provider("navpolicyd-http", kind: "envoyExtAuthzHttp")
        let prefix = http["pathPrefix"] as? String ?? ""
        let upstream = Set((http["headersToUpstreamOnAllow"] as? [String] ?? []).map { $0.lowercased() })
        let downstream = Set((http["headersToDownstreamOnDeny"] as? [String] ?? []).map { $0.lowercased() })

        // The shipped config as it is, but on loopback ports of the test's choosing: the flags
        // override the addresses only, the path prefix and the handlers stay the ConfigMap's.
        let service = try ExtAuthzHTTPLiveTests.Service(
            config: config, arguments: ["--ext-authz-grpc-listen", "127.0.0.1:0"])

        // What Istio's HTTP client sends: pathPrefix + the original path, the original Host.
        let cancel = try service.check(path: prefix + "/logout")
        #expect(cancel.status == 403, "\(prefix)/logout must be decided as /logout, got \(cancel.status)")
        #expect(cancel.headers["x-navigation-handler"] == "logout")
        let redirect = try service.check(path: prefix + "/checkout", host: "pay.example.com")
        #expect(redirect.status == 302 && redirect.headers["location"] != nil)
        let allow = try service.check(path: prefix + "/welcome")
        #expect(allow.status == 200)

        // Every field navpolicyd answers with reaches the app (allow) or the client (deny).
        let forwarded = ["content-type", "cache-control", "location"]
        for (answer, listed) in [(cancel, downstream), (redirect, downstream), (allow, upstream)] {
            let sent = answer.headers.keys.filter { $0.hasPrefix("x-navigation-") || forwarded.contains($0) }
            #expect(!sent.isEmpty && Set(sent).isSubset(of: listed), "\(answer.status): \(sent) not all in \(listed)")
        }
    }
}
