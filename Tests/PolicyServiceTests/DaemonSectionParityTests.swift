import NavigationPolicy
import PolicySections
import Testing

@testable import PolicyService

/// The daemon's compiler (what `navpolicyd validate`, `serve` and reloads load with) and the
/// core-only one a WebAssembly build or an app gets from PolicySections
/// (``DaemonConfigSections/compiler``) must refuse exactly the same configs with the same
/// issues: a corpus of every documented field of every top-level section, with valid values,
/// wrong types, out-of-range values, unknown and duplicated members, goes through both.
@Suite("daemon sections: the core-only compiler refuses what the daemon refuses")
struct DaemonSectionParityTests {
    /// One field of a section: values the field accepts and values it refuses, besides the
    /// wrong-typed values every field is tried with (``wrongTypes``).
    struct Field {
        let name: String
        let values: [String]
    }

    /// Tried on every field: each is of a type or range most fields refuse.
    static let wrongTypes = [
        "null", "true", "\"text\"", "\"\"", "-1", "0", "1", "1.5", "1e300", "4294967296", "[]", "[1]", "{}",
    ]

    static let bundleFields = [
        Field(name: "maxAgeSeconds", values: ["300", "86400", "86401"]),
        Field(name: "signingKeyFile", values: ["\"/etc/navpolicyd/bundle.pem\"", "\"a\\u0000b\""]),
        Field(name: "lifetimeSeconds", values: ["59", "60", "31536000", "31536001"]),
        Field(name: "keyId", values: ["\"key-2026.a_b\"", "\"a b\"", String(repeating: "k", count: 65).quoted]),
        Field(name: "policyVersion", values: ["9007199254740991", "9007199254740992"]),
    ]

    static let connectFields = [
        Field(name: "ports", values: ["[443]", "[443,8443,443]", "[0]", "[65536]", "[\"443\"]"]),
        Field(name: "clientHelloTimeoutMilliseconds", values: ["600000", "600001"]),
        Field(name: "idleTimeoutSeconds", values: ["86400", "86401"]),
        Field(name: "maxTunnels", values: ["1000000", "1000001"]),
        Field(name: "maxTunnelsPerIP", values: ["128", "1000001"]),
    ]

    static let listenValues = [
        "\"127.0.0.1:0\"", "\"[::1]:9000\"", "\"localhost:8080\"", "\"0.0.0.0:8080\"", "\"127.0.0.1:8081\"",
        "\"nohost\"", "\":80\"", "\"1.2.3.4:99999\"", "\"[::1]80\"", "\"example.com:80\"", "\"1.2.3:80\"",
    ]

    /// Every top-level section the daemon accepts, with every field it documents.
    static let sections: [(name: String, keys: [String], fields: [Field])] = [
        (
            "server", PolicySections.ServerSettings.keys,
            [
                Field(name: "listen", values: listenValues),
                Field(name: "adminListen", values: listenValues),
                Field(name: "threads", values: ["256", "257"]),
                Field(name: "connectionLimit", values: ["2", "100000", "100001", "100"]),
                Field(name: "perIPConnectionLimit", values: ["256", "4096", "100000"]),
                Field(name: "perSubnetConnectionLimit", values: ["1024", "4096", "100"]),
                Field(name: "idleTimeoutSeconds", values: ["3600", "3601"]),
                Field(name: "headTimeoutSeconds", values: ["3600", "3601"]),
                Field(name: "minBodyBytesPerSecond", values: ["1073741824", "1073741825"]),
                Field(name: "bodyRateGraceSeconds", values: ["3600", "3601"]),
                Field(name: "connectionMemoryLimitBytes", values: ["32768", "32767", "1048576", "1048577"]),
                Field(name: "drainTimeoutSeconds", values: ["600", "601"]),
                Field(name: "requireTokenForDecide", values: ["false"]),
                Field(name: "adminTokenFile", values: ["\"/run/token\""]),
                Field(name: "watchConfig", values: ["false"]),
                Field(name: "watchIntervalMilliseconds", values: ["99", "100", "60000", "60001"]),
                Field(name: "bundle", values: nested(bundleFields)),
            ]
        ),
        (
            "intake", PolicySections.IntakeSettings.keys,
            [
                Field(name: "enabled", values: ["false"]),
                Field(name: "database", values: ["\"/var/lib/x.db\"", "\"postgresql://u@h/db\"", "\"a\\u0000b\""]),
                Field(name: "pool", values: ["64", "65"]),
                Field(name: "maxWebURLs", values: ["50", "51"]),
                Field(name: "onCancel", values: ["\"store\"", "\"reject\"", "\"drop\""]),
                Field(name: "tokenFile", values: ["\"/run/intake-token\""]),
                Field(name: "groupCommit", values: ["false"]),
                Field(name: "busyTimeoutMilliseconds", values: ["60000", "60001"]),
                Field(name: "maxDatabaseBytes", values: ["65535", "65536", "1099511627776", "1099511627777"]),
                Field(name: "maxWaitingRequests", values: ["4096", "4097"]),
            ]
        ),
        (
            "decisionLog", PolicySections.DecisionLogSettings.keys,
            [
                Field(name: "maxBytes", values: ["16384", "16385", "1099511627776", "1099511627777"]),
                Field(
                    name: "redactQueryParameters",
                    values: ["[\"code\",\"*\"]", "\"code\"", "[\"\"]", "[\"%20\"]", "[\"code\",1]", "[\"a[b]\",\"%2563ode\"]"]),
            ]
        ),
        (
            "policySource", PolicySections.PolicySourceSettings.keys,
            [
                Field(
                    name: "url",
                    values: ["\"https://policy.example/v1/policy/bundle\"", "\"ftp://x\"", "\"http://\"", "\"http://a b\""]),
                Field(
                    name: "trustedKeys",
                    values: [
                        "{\"k1\":\"vlA6b2WpmC3fUdZQCc6q6Yj1Ljv7R8kM5q0JcIY3n2A=\"}", "{}", "{\"k 1\":\"x\"}", "[]",
                        "{\"k1\":\"short=\"}",
                    ]),
                Field(name: "pollIntervalSeconds", values: ["4", "5", "86400", "86401"]),
                Field(name: "cacheFile", values: ["\"/var/lib/navpolicyd/pulled.bundle\"", "\"\"", "1"]),
                Field(name: "timeoutSeconds", values: ["0", "1", "600", "601"]),
            ]
        ),
        (
            "proxy", PolicySections.ProxySettings.keys,
            [
                Field(name: "listen", values: listenValues),
                Field(name: "decide", values: ["\"navigations\"", "\"all\"", "\"some\""]),
                Field(
                    name: "resolve",
                    values: [
                        "{\"a.test:443\":\"127.0.0.1\"}", "{\"a.test\":\"127.0.0.1\"}", "{\"a.test:443\":\"1.2.3.4,5.6.7.8\"}",
                        "{\":443\":\"127.0.0.1\"}", "{\"a.test:443\":1}",
                    ]),
                Field(name: "upstream", values: ["\"http://127.0.0.1:3000/\"", "\"ftp://x\"", "\"https://a/b\""]),
                Field(name: "publicOrigin", values: ["\"https://app.example.com\"", "\"https://\""]),
                Field(name: "connectTimeoutMilliseconds", values: ["600000", "600001"]),
                Field(name: "timeoutMilliseconds", values: ["3600000", "3600001"]),
                Field(name: "maxResponseBytes", values: ["1125899906842624", "1125899906842625"]),
                Field(name: "maxRequestBodyBytes", values: ["1073741824", "1073741825"]),
                Field(name: "allowInternalDestinations", values: ["false"]),
                Field(name: "connect", values: nested(connectFields)),
            ]
        ),
        (
            "extAuthz", PolicySections.ExtAuthzSettings.keys,
            [
                Field(name: "listen", values: listenValues),
                Field(name: "grpcListen", values: listenValues),
                Field(name: "pathPrefix", values: ["\"/authz\"", "\"authz\"", "\"/authz/\"", "\"/a?b\"", "\"/a b\""]),
                Field(name: "dryRun", values: ["true", "false", "\"true\""]),
            ]
        ),
    ]

    /// A nested object's corpus as values of its field: each member alone with each of its
    /// values and wrong types, an unknown member, a duplicated one.
    static func nested(_ fields: [Field]) -> [String] {
        var values = ["{}", "{\"unknown\":1}"]
        for field in fields {
            for value in field.values + wrongTypes { values.append("{\(field.name.quoted):\(value)}") }
            values.append("{\(field.name.quoted):\(field.values[0]),\(field.name.quoted):\(field.values[0])}")
        }
        values.append("{" + fields.map { "\($0.name.quoted):\($0.values[0])" }.joined(separator: ",") + "}")
        return values
    }

    /// Every config of the corpus: each section's values (alone, together, unknown and
    /// duplicated members, the section not an object), then checks that span sections.
    static var corpus: [String] {
        var documents: [String] = []
        func document(_ members: String) -> String { "{\"handlers\":[]" + (members.isEmpty ? "" : "," + members) + "}" }
        for section in sections {
            let name = section.name.quoted
            for value in ["{}", "[]", "null", "\"text\"", "1", "{\"unknown\":1}", "{\"\(section.fields[0].name)x\":1}"] {
                documents.append(document("\(name):\(value)"))
            }
            for field in section.fields {
                for value in field.values + wrongTypes {
                    documents.append(document("\(name):{\(field.name.quoted):\(value)}"))
                }
                let first = "\(field.name.quoted):\(field.values[0])"
                documents.append(document("\(name):{\(first),\(first)}"))
            }
            let together = section.fields.map { "\($0.name.quoted):\($0.values[0])" }.joined(separator: ",")
            documents.append(document("\(name):{\(together)}"))
            documents.append(document("\(name):{},\(name):{}"))
        }
        documents += [
            document("\"servre\":{}"),
            document("\"proxy\":{\"listen\":\"127.0.0.1:8080\"}"),
            document("\"proxy\":{\"listen\":\"0.0.0.0:9000\"},\"server\":{\"adminListen\":\"127.0.0.1:9000\"}"),
            document("\"proxy\":{\"listen\":\"127.0.0.1:0\"},\"server\":{\"listen\":\"127.0.0.1:0\"}"),
            document(
                "\"server\":{\"threads\":-1},\"intake\":{\"pool\":0},\"decisionLog\":{\"maxBytes\":1},"
                    + "\"proxy\":{\"decide\":1},\"extAuthz\":{\"pathPrefix\":1}"),
            document("\"proxy\":{\"upstream\":\"http://127.0.0.1:3000\"}"),
            // Clashes between any two listen members (attack round 7, F5: `validate` passed
            // these and `serve` refused to start).
            document("\"extAuthz\":{\"grpcListen\":\"127.0.0.1:8080\"}"),
            document("\"extAuthz\":{\"listen\":\"127.0.0.1:9001\",\"grpcListen\":\"0.0.0.0:9001\"}"),
            document("\"extAuthz\":{\"listen\":\"[::1]:9002\"},\"proxy\":{\"listen\":\"[0:0::1]:9002\"}"),
            document("\"server\":{\"adminListen\":\"127.000.0.1:9003\"}"),
        ]
        return documents
    }

    /// What `compiler` says of `text`: no issues, or each issue as `/pointer: message`.
    static func outcome(_ compiler: PolicyCompiler, _ text: String) -> [String] {
        do {
            _ = try compiler.compile(Array(text.utf8))
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    @Test("every config of the corpus: the same accept or refuse, the same issues at the same pointers")
    func sameVerdicts() {
        let daemon = PolicyService.ServerSettings.compiler
        let core = DaemonConfigSections.compiler
        var accepted = 0
        var refused = 0
        for text in Self.corpus {
            let expected = Self.outcome(daemon, text)
            #expect(Self.outcome(core, text) == expected, "\(text)")
            if expected.isEmpty { accepted += 1 } else { refused += 1 }
        }
        // The corpus must exercise both verdicts, or it would prove nothing.
        #expect(accepted >= 50 && refused >= 300, "accepted \(accepted), refused \(refused)")
    }

    @Test("every listener kind that reads its address from the config reads a member the clash check knows")
    func listenMembersMatchTheKinds() throws {
        var readByKinds: [String] = []
        for kind in ListenerKind.all {
            var readers: [String] = []
            for member in DaemonConfigSections.listenMembers {
                let config = "{\"handlers\":[],\(member.section.quoted):{\(member.member.quoted):\"127.0.0.1:4321\"}}"
                let snapshot = try PolicySnapshot.build(from: Array(config.utf8)).get()
                if kind.configured(snapshot) == "127.0.0.1:4321" { readers.append(member.name) }
            }
            // One member per kind (or none: an address from a flag or systemd only).
            #expect(readers.count <= 1, "\(kind.role): \(readers)")
            readByKinds += readers
        }
        // And no member that no kind binds: the clash check would refuse what serve allows.
        #expect(readByKinds.sorted() == DaemonConfigSections.listenMembers.map(\.name).sorted())
    }

    @Test("the corpus names every documented field, and both compilers the same sections in the same order")
    func corpusCoversEveryField() {
        for section in Self.sections {
            #expect(section.fields.map(\.name).sorted() == section.keys.sorted(), "\(section.name)")
        }
        #expect(Self.sections.map(\.name) == DaemonSection.registered.map(\.name))
        #expect(DaemonConfigSections.all.map(\.name) == DaemonSection.registered.map(\.name))
        #expect(DaemonConfigSections.compiler.topLevelKeys == PolicyService.ServerSettings.compiler.topLevelKeys)
        let nestedKeys = [
            (PolicySections.BundleSettings.keys, Self.bundleFields), (PolicySections.ConnectSettings.keys, Self.connectFields),
        ]
        for (keys, fields) in nestedKeys { #expect(fields.map(\.name).sorted() == keys.sorted()) }
    }
}

extension String {
    /// This text as a JSON string literal (the corpus's names and values need no escaping).
    fileprivate var quoted: String { "\"" + self + "\"" }
}
