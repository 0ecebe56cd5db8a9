import Testing

@testable import NavigationPolicy

/// The byte scan the matchers find dots and slashes with (``Substring``'s
/// `firstUTF8Index(of:from:)`) answers as the generic `utf8` view does, for every slice of a
/// string, and `withUTF8Bytes` hands over the slice's own bytes: both read the base string's
/// storage at the slice's offsets, so a slice that does not start at the base's start is the
/// case to hold.
@Suite("Substring bytes scanned in place")
struct SubstringBytesTests {
    /// Small (inline) and large strings, ASCII and not, with the bytes searched for at the edges.
    static let texts = [
        "", ".", "/", "a.b", "https://pay.example.com/a/b/c", "/x//y/", "..a..", "é.日本/é", "a.\u{1F600}/b.",
        String(repeating: "ab.cd/", count: 4),
    ]

    /// Every slice on a scalar boundary of `text`.
    static func slices(of text: String) -> [Substring] {
        let bounds = Array(text.unicodeScalars.indices) + [text.endIndex]
        return bounds.indices.flatMap { lower in bounds[lower...].map { text[bounds[lower]..<$0] } }
    }

    @Test("firstUTF8Index(of:from:) is utf8[start...].firstIndex(of:), from every start of every slice")
    func firstIndexAgrees() {
        for text in Self.texts {
            for slice in Self.slices(of: text) {
                var starts = Array(slice.utf8.indices)
                starts.append(slice.endIndex)
                for start in starts {
                    for byte in [UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "z"), 0xA9] {
                        #expect(
                            slice.firstUTF8Index(of: byte, from: start) == slice.utf8[start...].firstIndex(of: byte),
                            "\(Array(slice.utf8)) from \(slice.utf8.distance(from: slice.startIndex, to: start)), byte \(byte)")
                    }
                }
            }
        }
    }

    @Test("parent domains and path segments of a slice of a URL, as the matchers ask for them")
    func helpersOnSlices() {
        let href = "https://a.b.example.com/x//yz/w."
        let host = href.dropFirst(8).prefix(15)
        var parents: [String] = []
        let found = MatchHost.anyParentDomain(of: host) {
            parents.append(String($0))
            return false
        }
        #expect(!found)
        #expect(parents == ["b.example.com", "example.com", "com"])
        #expect(MatchHost.anyParentDomain(of: host) { $0 == "example.com" })
        #expect(!MatchHost.anyParentDomain(of: href.dropFirst(8).prefix(2)) { _ in true })  // "a." has no parent
        var segments: [String] = []
        href.dropFirst(23).withUTF8Bytes { path in
            SegmentTrie<Int>.forEachSegment(of: path) {
                segments.append(String(decoding: $0, as: UTF8.self))
                return true
            }
        }
        #expect(segments == ["x", "yz", "w."])
        segments = []
        href.dropFirst(23).withUTF8Bytes { path in
            SegmentTrie<Int>.forEachSegment(of: path) {
                segments.append(String(decoding: $0, as: UTF8.self))
                return false
            }
        }
        #expect(segments == ["x"])
    }

    @Test("withUTF8Bytes reads exactly the slice's bytes, for every slice")
    func bytesInPlace() {
        for text in Self.texts {
            for slice in Self.slices(of: text) {
                #expect(slice.withUTF8Bytes { Array($0) } == Array(slice.utf8), "\(Array(slice.utf8))")
            }
        }
    }
}
