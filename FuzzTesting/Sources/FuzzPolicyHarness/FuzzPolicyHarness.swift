import PolicyHarness
import PolicyHarnessClient

/// The differential harness (Tests/Support/PolicyHarness) on seeds and shapes the fuzzer picks:
/// every engine (linear scan, index, automaton, explain, JSON with tables, compiled image, the
/// client's signed compiled bundle) decides the policy's generated requests alike, and with the
/// analysis bit set, no claim of the analysis is refuted. A disagreement is a crash whose input
/// names the seed; replay it with `.build/fuzz/debug/FuzzPolicyHarness <file>`.
///
/// Input: 8 bytes of seed (little-endian, missing bytes zero), a shape byte (``PolicyShape/init(fuzzByte:)``),
/// a flags byte (bit 0: the analysis's claims too, on small chains).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPolicyHarness(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
    var seed: UInt64 = 0
    for (index, byte) in bytes.prefix(8).enumerated() { seed |= UInt64(byte) << (8 * UInt64(index)) }
    var shape = PolicyShape(fuzzByte: bytes.count > 8 ? bytes[8] : 0)
    let analysis = bytes.count > 9 && bytes[9] & 1 != 0
    if analysis { shape = PolicyShape(handlers: 2...4, largeListPercent: 0, largeList: 0, requests: 64) }
    var figures = HarnessFigures()
    DifferentialHarness.run(
        seed: seed, shape: shape, engines: analysis ? [.linearScan] : engines,
        claims: analysis ? AnalysisClaims.Options(steps: 200_000, mutations: 2, extraRequests: 16) : nil,
        figures: &figures)
    if !figures.disagreements.isEmpty {
        fatalError("seed \(seed), \(shape): " + figures.disagreements.joined(separator: "\n"))
    }
    return 0
}

private let engines = DifferentialHarness.coreEngines + [.clientBundle]
