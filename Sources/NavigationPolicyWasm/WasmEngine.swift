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

    /// A `POST /v1/decide` body's members read as the daemon's strict parser reads them.
    static func request(_ bytes: UnsafeRawBufferPointer) throws(WasmFailure) -> NavigationRequest {
        guard bytes.count <= maximumRequestBytes else {
            throw WasmFailure(
                code: "payload-too-large", message: "the request is \(bytes.count) bytes; at most \(maximumRequestBytes)")
        }
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
