import Foundation
import NavigationPolicy
import Testing

@testable import NavigationPolicyClient

/// Attack round 9, F2: text from a bundle that is refused reaches the app's outcome, the daemon's
/// log and status; however large the bundle's text, a reason stays small and free of control bytes.
@Suite("Bounded bundle text in rejection reasons")
struct BundleTextTests {
    static func isFree(ofControlBytes text: String) -> Bool {
        !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    @Test func aDuplicateMemberWithAHugeNameGivesAShortReason() {
        // 22 KB escaped, twice: inside the 64 KiB head the signing head reads (BundleSigningHead),
        // so the duplicate is found and named there; a longer head is refused for its length.
        let name = String(repeating: #"\u001b]0;pwned\u0007"#, count: 1_000)
        let bytes = Array(
            #"{"format":"navpolicy-bundle","version":2,"\#(name)":1,"\#(name)":2}"#.utf8)
        #expect(throws: BundleRejection.self) { try VerifiedBundle(bytes: bytes, signature: nil, trust: .init()) }
        do {
            _ = try VerifiedBundle(bytes: bytes, signature: nil, trust: .init())
        } catch {
            #expect(error.kind == .malformed)
            #expect(error.reason.utf8.count <= BundleText.maximumReasonBytes + 64, "\(error.reason.utf8.count) bytes")
            #expect(Self.isFree(ofControlBytes: error.reason), "\(error.reason.prefix(80))")
        }
    }

    @Test func anUnknownMemberWithAHugeNameGivesAShortReason() {
        let base = bundleBytes()
        let name = String(repeating: "m", count: 60_000)
        let bytes = Array(base.dropLast()) + Array(#","\#(name)":1}"#.utf8)
        do {
            _ = try VerifiedBundle(bytes: bytes, signature: nil, trust: .init())
            Issue.record("accepted")
        } catch {
            #expect(error.kind == .malformed)
            #expect(error.reason.utf8.count <= BundleText.maximumReasonBytes + 64, "\(error.reason.utf8.count) bytes")
        }
    }

    @Test func aShortReasonIsKeptAndControlCharactersAreEscaped() {
        #expect(BundleRejection(.malformed, "\"policy\" must be an object").reason == "\"policy\" must be an object")
        #expect(BundleRejection(.malformed, "bell \u{07} and escape \u{1B}[2J").reason == #"bell \u{7} and escape \u{1B}[2J"#)
    }

    @Test func aKeyIdIsShownByTheOneRule() {
        #expect(BundleText.shown("k1") == "\"k1\"")
        #expect(BundleKeyChoice.shown("k1") == BundleText.shown("k1"))
        let long = String(repeating: "\u{1B}", count: 100)
        #expect(BundleText.shown(long) == "of 100 bytes starting \"????????????????\"")
    }
}
