import JSONSupport
import Testing

@testable import NavigationPolicy

/// Outside attack 16, F4: `defaultDecision`, a handler's `type` and `mode` and the values of
/// `match.navigationTypes` (and `targetFrames`) were compared with their words as `String`s,
/// which normalizes a hostile value first: a 256 KiB run of combining marks cost 8-24 s in
/// `POST /v1/policy/analyze`. They are compared by bytes now, and an unknown one is echoed cut.
@Suite("config values compared by bytes, echoed bounded")
struct ConfigValueBytesTests {
    static let marks = String(repeating: "\u{0323}\u{0301}", count: 30_000)

    /// The issues `json` compiles to.
    static func issues(_ json: String) -> [String] {
        do {
            _ = try PolicyCompiler().compile(Array(json.utf8))
            return []
        } catch {
            return error.description.split(separator: "\n").map(String.init)
        }
    }

    @Test("each value a config reads as a word: refused, and its echo cut to the bound")
    func hostileValuesAreRefusedBounded() {
        let cases = [
            #"{"defaultDecision": "allow\#(Self.marks)", "handlers": []}"#,
            #"{"handlers": [{"name": "a", "type": "cancel\#(Self.marks)"}]}"#,
            #"{"handlers": [{"name": "a", "type": "cancel", "mode": "shadow\#(Self.marks)"}]}"#,
            #"{"handlers": [{"name": "a", "type": "cancel", "match": {"navigationTypes": ["reload\#(Self.marks)"]}}]}"#,
            #"{"handlers": [{"name": "a", "type": "cancel", "match": {"targetFrames": ["main\#(Self.marks)"]}}]}"#,
        ]
        for json in cases {
            let issues = Self.issues(json)
            #expect(issues.count >= 1, "\(json.prefix(80))")
            #expect(issues.allSatisfy { $0.utf8.count < 400 }, "\(issues.map { $0.prefix(120) })")
        }
    }

    @Test("the words themselves still compile, and only byte-equal spellings are them")
    func wordsCompile() throws {
        let policy = try compile(
            #"{"defaultDecision": "cancel", "handlers": [{"name": "a", "type": "logout", "mode": "shadow", "#
                + #""match": {"navigationTypes": ["reload"], "targetFrames": ["sub"]}}]}"#)
        #expect(policy.defaultVerdict == .cancel)
        #expect(policy.links.first?.isShadow == true)
        #expect(HandlerRegistry.builtIn.entry(named: "logout") != nil)
        #expect(HandlerRegistry.builtIn.entry(named: "logout\u{0301}") == nil)
        #expect(ModeForm.isShadow("shadow") == true && ModeForm.isShadow("enforce") == false)
        #expect(ModeForm.isShadow("Shadow") == nil && ModeForm.isShadow("shadow\u{0301}") == nil)
        #expect(DefaultDecisionForm.normalized("allow") == .allow && DefaultDecisionForm.normalized("allow ") == nil)
    }
}
