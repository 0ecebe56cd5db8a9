import JSONSupport
import NavigationPolicy
import PolicyService

/// The config compiler, with the daemon's section validators (server, intake, proxy): bad
/// configs are errors with a message, never a trap. A config that compiles decides a request.
///
/// Differential: the same bytes compiled with every `hosts` and `pathPrefixes` list stored as
/// a sorted table (what the daemon does from 4,096 entries; threshold 1 here so small inputs
/// reach it) give the same issues, or decide every URL alike, traces included.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    let entries = compiled(bytes, ServerSettings.compiler)
    let tables = compiled(bytes, ServerSettings.compiler.storingLargeListsAsTables(threshold: 1))
    switch (entries, tables) {
    case (.success(let policy), .success(let tabled)):
        for url in [
            "https://a.example/logout", "http://127.0.0.1/", "javascript:alert(1)", "https://A.Example./x/y",
            "https://b.a.example/a/b/", "http://[::ffff:10.0.0.1]/", "https://xn--bcher-kva.example/%41",
        ] {
            let request = NavigationRequest(url: url)
            let decided = try? policy.decide(request, explain: true)
            if decided != (try? tabled.decide(request, explain: true)) {
                fatalError("tables and entries decide \(url) differently")
            }
        }
    case (.failure(let error), .failure(let tabledError)):
        if error.description.isEmpty { fatalError("a config error without a message") }
        if error.issues != tabledError.issues { fatalError("tables and entries report different issues") }
    default:
        fatalError("the config compiles with one storage and not the other")
    }
    return 0
}

private func compiled(_ bytes: UnsafeRawBufferPointer, _ compiler: PolicyCompiler) -> Result<CompiledPolicy, ConfigError> {
    do throws(ConfigError) {
        return .success(try compiler.compile(bytes))
    } catch {
        return .failure(error)
    }
}
