import NavigationPolicy

// Compiled into the exports module only by `WASM_BENCH=1 scripts/build-wasm.sh` (bench/wasm.sh
// with ENGINE=1), never into dist/wasm: the engine alone in WebAssembly, with no JavaScript and
// no request or decision crossing the module's boundary, so its rate against `navpolicyd bench`
// separates what wasm32 costs the engine itself from what the JavaScript API adds
// (docs/performance.md, "The engine alone").

/// Decides the newline-separated URLs at `bytes` round-robin `iterations` times, as
/// `navpolicyd bench --urls` does (each a `GET` with the request defaults, built once before
/// the loop); returns how many were cancelled, or -1 for no such policy.
@_expose(wasm, "navpolicy_bench_decide_loop")
@_cdecl("navpolicy_bench_decide_loop")
public func navpolicyBenchDecideLoop(_ handle: Int32, _ bytes: UnsafeRawPointer?, _ count: Int32, _ iterations: Int32) -> Int32 {
    guard let loaded = Handles.policies.value(handle), let bytes, count > 0 else { return -1 }
    let text = UnsafeRawBufferPointer(start: bytes, count: Int(count)).bindMemory(to: UInt8.self)
    var requests: [NavigationRequest] = []
    var lineStart = 0
    for index in 0...text.count where index == text.count || text[index] == UInt8(ascii: "\n") {
        if index > lineStart {
            let line = UnsafeBufferPointer(rebasing: text[lineStart..<index])
            requests.append(NavigationRequest(url: String(decoding: line, as: UTF8.self)))
        }
        lineStart = index + 1
    }
    guard !requests.isEmpty else { return -1 }
    var cancelled: Int32 = 0
    for index in 0..<Int(max(iterations, 0)) {
        if let decision = try? loaded.policy.decide(requests[index % requests.count]), decision.verdict == .cancel {
            cancelled += 1
        }
    }
    return cancelled
}
