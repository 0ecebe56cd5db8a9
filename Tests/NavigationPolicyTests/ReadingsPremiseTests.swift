import JSONSupport
import PolicyHarness
import TestSelection
import Testing

@testable import NavigationPolicy

/// What the analysis's exact claims about `urlPatterns` rest on (`Analysis/StandardReading.swift`):
/// each further reading of a request (``CanonicalRequest/otherReadings(forURLPatterns:)``: the
/// decoded separators, the standard's spelling, the match form with its trailing slash, and the
/// decoded paths spelled both ways) is, to every condition but `urlPatterns`, the plain request
/// of its own host and match-form path. Then a handler decides a reading only where it decides
/// that plain request, which the regions do model, with patterns reading other inputs there:
/// the argument that makes "unreachable" and "none can reach" exact holds for every reading, not
/// only the standard one. A reading added later that reads another condition differently (a
/// method, a host) fails here, and the analysis must then model it or answer "unknown".
@Suite("Readings: each is a match-form request to every condition but urlPatterns", .tags(.volume))
struct ReadingsPremiseTests {
    /// `policy` with every handler's `urlPatterns` taken out.
    static func withoutURLPatterns(_ policy: JSONObject) -> JSONObject {
        var result = policy
        let handlers = (policy["handlers"]?.arrayValue ?? []).compactMap(\.objectValue).map { handler -> JSONValue in
            var handler = handler
            if var match = handler["match"]?.objectValue, let index = handler.members.firstIndex(where: { $0.key == "match" }) {
                match.members.removeAll { $0.key == "urlPatterns" }
                handler.members[index].value = .object(match)
            }
            return .object(handler)
        }
        if let index = result.members.firstIndex(where: { $0.key == "handlers" }) {
            result.members[index].value = .array(handlers)
        }
        return result
    }

    @Test(
        "every other reading decides as the plain request of its host and match-form path",
        arguments: TestVolume.seeds(UInt64(50_000)..<50_100, sample: 12))
    func readingsAreMatchFormRequests(seed: UInt64) throws {
        var random = HarnessRandom(state: seed)
        let json = Self.withoutURLPatterns(PolicyGenerator.policy(shape: .indexed, &random))
        let policy = try PolicyCompiler().compile(.object(json))
        var readings = 0
        for request in RequestGenerator(policy: json).requests(300, &random) {
            guard let canonical = try? CanonicalRequest(request) else { continue }
            for reading in canonical.otherReadings(forURLPatterns: true) {
                let plain = try CanonicalRequest(
                    NavigationRequest(
                        url: "\(reading.url.scheme)://\(reading.url.hostname)\(reading.matchPath.text)", method: request.method,
                        navigationType: request.navigationType, targetFrame: request.targetFrame))
                #expect(plain.matchPath == reading.matchPath, "\(request.url): \(reading.matchPath.text)")
                let one = policy.decideLinear(reading)
                let other = policy.decideLinear(plain)
                #expect(
                    one.verdict == other.verdict && one.handler == other.handler && one.action == other.action,
                    "seed \(seed) \(request.url) reading \(reading.matchPath.text): \(one.handler ?? "default") vs \(other.handler ?? "default")"
                )
                readings += 1
            }
        }
        #expect(readings > 20)
    }
}
