import JSONSupport
import Testing

@testable import NavigationPolicy

/// The compiler sizes its tables from estimates (handlers left in a streamed array, entries of a
/// `match` object); these pin that an estimate only changes capacity: every config compiles to
/// the same chain and the same issues whether the estimate is right, too low or too high.
@Suite("Compile sizing")
struct CompileSizingTests {
    @Test("the estimate covers handlers of the size read so far, with 1/8 to spare")
    func uniformHandlers() {
        // 64 handlers of 100 bytes read, 936 more of them left.
        let capacity = HandlerCountEstimate.capacity(read: 64, bytesRead: 6_400, bytesLeft: 93_600)
        #expect(capacity >= 1_000)
        #expect(capacity <= 1_125)
    }

    @Test("the estimate at least doubles what was read, so asking again grows geometrically")
    func atLeastDoubles() {
        #expect(HandlerCountEstimate.capacity(read: 64, bytesRead: 6_400, bytesLeft: 0) == 128)
        #expect(HandlerCountEstimate.capacity(read: 1_000, bytesRead: 1_000_000, bytesLeft: 50) == 2_000)
    }

    @Test("degenerate inputs give a usable capacity, never a trap")
    func degenerate() {
        #expect(HandlerCountEstimate.capacity(read: 0, bytesRead: 0, bytesLeft: 10) == HandlerCountEstimate.firstSample)
        #expect(HandlerCountEstimate.capacity(read: 64, bytesRead: 0, bytesLeft: 640) > 64)
        #expect(HandlerCountEstimate.capacity(read: 64, bytesRead: 640, bytesLeft: -5) == 128)
    }

    /// A first sample of large handlers, then many small ones (the estimate falls short and is
    /// redone several times), then a large trailing section (the estimate overshoots).
    static func skewedConfig(duplicateAt duplicates: Set<Int>, invalidAt invalid: Set<Int> = []) -> [UInt8] {
        let padding = String(repeating: "/p", count: 200)
        var handlers: [String] = []
        for index in 0..<3_000 {
            let name = duplicates.contains(index) ? "h\(index / 7)" : "h\(index)"
            let type = invalid.contains(index) ? "alow" : "allow"
            if index < HandlerCountEstimate.firstSample {
                handlers.append(
                    #"{"name":"\#(name)","type":"\#(type)","match":{"paths":["\#(padding)\#(index)"]}}"#)
            } else {
                handlers.append(#"{"name":"\#(name)","type":"\#(type)"}"#)
            }
        }
        let trailing = String(repeating: "x", count: 200_000)
        return Array(#"{"handlers":[\#(handlers.joined(separator: ","))],"server":{"note":"\#(trailing)"}}"#.utf8)
    }

    @Test("a valid config whose handler sizes mislead the estimate compiles every handler in order")
    func skewedValid() throws {
        let bytes = Self.skewedConfig(duplicateAt: [])
        let compiler = PolicyCompiler(registry: .builtIn, sections: [ConfigSection(name: "server")])
        let streamed = try compiler.compile(bytes)
        let tree = try compiler.compile(JSONParser(maximumDepth: 32, rejectsDuplicateMembers: false).parse(bytes))
        #expect(streamed.links.count == 3_000)
        #expect(streamed.links.map(\.name) == (0..<3_000).map { "h\($0)" })
        #expect(streamed.links.map(\.name) == tree.links.map(\.name))
    }

    @Test("duplicate names on both sides of every re-estimate are reported as the tree compile reports them")
    func skewedDuplicates() throws {
        // Duplicates of names first used before the first estimate, between estimates, and
        // right at the counts where the compiler estimates again (64, 128, 256, ...).
        let duplicates: Set<Int> = [63, 64, 65, 127, 128, 129, 255, 256, 511, 512, 1_023, 1_024, 2_047, 2_048, 2_999]
        let bytes = Self.skewedConfig(duplicateAt: duplicates, invalidAt: [64, 700, 2_999])
        let compiler = PolicyCompiler(registry: .builtIn, sections: [ConfigSection(name: "server")])
        let streamed = compileIssues { () throws(ConfigError) in try compiler.compile(bytes) }
        let document = try JSONParser(maximumDepth: 32, rejectsDuplicateMembers: false).parse(bytes)
        let tree = compileIssues { () throws(ConfigError) in try compiler.compile(document) }
        #expect(streamed == tree)
        #expect(streamed.count(where: { $0.contains("duplicate handler name") }) == duplicates.count)
        #expect(streamed.contains(#"/handlers/64/name: duplicate handler name "h9" (first used at /handlers/9)"#))
        #expect(streamed.contains(#"/handlers/2999/name: duplicate handler name "h428" (first used at /handlers/428)"#))
        #expect(streamed.count(where: { $0.contains("unknown handler type") }) == 3)
    }

    @Test("match entries keep config order, skip invalid entries and ignore non-list fields")
    func matchEntriesInOrder() throws {
        let text = #"""
            {"hosts":["a.example","*.b.example","bad host"],"caseSensitive":true,"methods":["GET","g e t"],
             "paths":["/x","/y"],"pathPrefixes":["/p/"],"pathPatterns":["/q/*"],"schemes":["https"],
             "navigationTypes":["linkActivated"],"targetFrames":["main","nope"]}
            """#
        let object = try JSONParser(maximumDepth: 8).parse(Array(text.utf8))
        var diagnostics = ConfigDiagnostics()
        let config = try #require(ConfigObject.expect(object, at: .root, diagnostics: &diagnostics))
        let matcher = RequestMatcher.decode(config, diagnostics: &diagnostics)
        #expect(
            matcher.entries.map(\.label) == [
                #"schemes[0] "https""#, #"hosts[0] "a.example""#, #"hosts[1] "*.b.example""#, #"paths[0] "/x""#,
                #"paths[1] "/y""#, #"pathPrefixes[0] "/p/""#, #"pathPatterns[0] "/q/*""#, #"methods[0] "GET""#,
                #"navigationTypes[0] "linkActivated""#, #"targetFrames[0] "main""#,
            ])
        #expect(diagnostics.issues.map(\.pointer.description) == ["/hosts/2", "/methods/1", "/targetFrames/1"])
    }

}
