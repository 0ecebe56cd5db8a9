import JSONSupport
import NavigationPolicy
import PolicySections

/// The engine as the exports use it: the compiler a config goes through and the request reader.
enum WasmEngine {
    /// What a config is compiled with: the daemon's sections and their validators (so
    /// `fromConfig` refuses exactly the configs `navpolicyd validate` refuses, a daemon section
    /// included) and the daemon's deciding compiler's choice of tables for large lists, so a
    /// blocklist config decides from the same structures as in the daemon.
    static let configCompiler = DaemonConfigSections.compiler.storingLargeListsAsTables()

    /// A request body's limit, the HTTP API's (docs/api.md, "Limits").
    static let maximumRequestBytes = 65_536

    /// A config's limit: `navpolicyd validate`'s default `--max-config-bytes`.
    static let maximumConfigBytes = ConfigSizeLimit.defaultMaxBytes

    /// The refusal of a config of `count` bytes, over ``maximumConfigBytes``: as the daemon
    /// refuses an invalid config (`invalid-config`), in `navpolicyd validate`'s words.
    static func configTooLarge(_ count: Int) -> WasmFailure {
        var failure = WasmFailure(
            code: "invalid-config",
            message: "the config \(ConfigSizeLimit.tooLarge(limit: maximumConfigBytes)): it is \(count) bytes")
        failure.errors = [failure.message]
        return failure
    }

    /// Why `ids`, the trusted keys' ids, cannot be trusted (nil: they can): each must be a key
    /// id `navpolicyd bundle --key-id` and `--bundle-key` accept (``BundleKeyIDFormat``), or no
    /// bundle a daemon signs names it.
    static func trustedKeyIDsProblem(_ ids: [String]) -> WasmFailure? {
        for id in ids {
            if let problem = BundleKeyIDFormat.problem(id) {
                return .misuse("trustedKeys: the id \(BundleText.shown(id)) is not a key id: \(problem)")
            }
        }
        return nil
    }

    /// The refusal of a request of `count` bytes, over ``maximumRequestBytes``: the daemon's 413.
    static func requestTooLarge(_ count: Int) -> WasmFailure {
        WasmFailure(code: "payload-too-large", message: "the request is \(count) bytes; at most \(maximumRequestBytes)")
    }

    /// A `POST /v1/decide` body's members read as the daemon's strict parser reads them.
    static func request(_ bytes: UnsafeRawBufferPointer) throws(WasmFailure) -> NavigationRequest {
        guard bytes.count <= maximumRequestBytes else { throw requestTooLarge(bytes.count) }
        let document: JSONValue
        do {
            document = try JSONParser(maximumDepth: 8).parse(bytes)
        } catch {
            throw WasmFailure(code: "malformed-json", message: "the request is not valid JSON: \(error)")
        }
        guard case .object(let object) = document else {
            throw WasmFailure(code: "malformed-json", message: "the request must be a JSON object, not \(document.kindName)")
        }
        do {
            return try NavigationRequest(json: object)
        } catch {
            throw WasmFailure(error)
        }
    }
}
