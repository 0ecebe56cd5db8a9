import Foundation
import TestSelection
import Testing

/// The app client's own transport on Linux (CurlBundleDownload, docs/integrations/ios.md,
/// "Linux"), in its own process (bench/ClientMemoryBench) against answers corelibs `URLSession`
/// could not be held to: a chunked answer ending with a trailer field stopped the process in
/// corelibs Foundation (attack round 10, F3); a chunked body without end and a gzip bomb cost
/// the transport's memory, not the client's (attack round 9, F3). Each is refused from its head
/// with the process alive and its memory bounded; a length that lies short is read as announced.
@Suite("NavigationPolicyClient's libcurl transport against hostile answers, live", .serialized, .tags(.live))
struct ClientLinuxTransportLiveTests {
    /// The most a refused answer may add to the client's resident memory: a thread, a libcurl
    /// handle and a response head; the bodies sent are 16 MiB to without end.
    static let growthBound = 32 << 20

    @Test("hostile answers are refused from their head: the process lives, its memory stays bounded")
    func hostileAnswersAreRefusedWithBoundedMemory() throws {
        let setup = try ClientFileBackedLiveTests.setUp()
        let cases: [(name: String, extra: [String], refresh: String, why: String)] = [
            // Round 10, F3: corelibs Foundation trapped ("Transfer completed, but there's no response").
            ("chunked with a trailer", ["--chunked-trailer"], "unavailable", "Transfer-Encoding"),
            // Round 9, F3: URLSession queued every chunk (40 MB to 5.3 GB peak before this transport).
            ("endless chunked body", ["--chunked-endless"], "unavailable", "Transfer-Encoding"),
            // Round 9, F3: libcurl inflated what it had read (up to 1.18 GB peak).
            ("gzip bomb", ["--gzip-bomb", "\(768 << 20)"], "unavailable", "Content-Encoding"),
            // A Content-Length shorter than what follows: only the announced bytes are read (a
            // bundle cut short, refused by its check), the rest never is.
            ("a length that lies short", ["--claim-length", "1000"], "rejected", ""),
        ]
        for hostile in cases {
            let origin = try BundleOrigin(body: setup.shipped, signature: nil, etag: nil, extraArguments: hostile.extra)
            // ClientFileBackedLiveTests.run requires exit status 0 and a JSON result: a trap fails it.
            let result = try ClientFileBackedLiveTests.run(
                "refresh", setup, cache: setup.cache, bundleURL: origin.baseURL + "/v1/policy/bundle",
                url: "https://newer.example/", extraArguments: ["--refresh-timeout", "20"])
            #expect(result["refresh"] as? String == hostile.refresh, "\(hostile.name): \(result)")
            let why = (result["reason"] as? String) ?? (result["rejection"] as? String) ?? ""
            #expect(why.contains(hostile.why), "\(hostile.name): \(result)")
            #expect(result["sourceAfter"] as? String == "shipped", "\(hostile.name)")
            let peak = result["refreshPeakRSSBytes"] as? Int ?? .max
            let before = result["residentBeforeRefreshBytes"] as? Int ?? 0
            #expect(peak - before < Self.growthBound, "\(hostile.name): \(before) -> \(peak) bytes resident")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: setup.cache.path)) ?? []
            #expect(left.isEmpty, "\(hostile.name): \(left) left in the cache directory")
        }
    }
}
