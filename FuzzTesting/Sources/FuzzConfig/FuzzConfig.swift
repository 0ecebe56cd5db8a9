import JSONSupport
import NavigationPolicy
import PolicyService

/// The config compiler, with the daemon's section validators (server, intake, proxy): bad
/// configs are errors with a message, never a trap. A config that compiles decides a request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    do {
        let policy = try ServerSettings.compiler.compile(bytes)
        for url in ["https://a.example/logout", "http://127.0.0.1/", "javascript:alert(1)"] {
            _ = try? policy.decide(NavigationRequest(url: url), explain: true)
        }
    } catch {
        if error.description.isEmpty { fatalError("a config error without a message") }
    }
    return 0
}
