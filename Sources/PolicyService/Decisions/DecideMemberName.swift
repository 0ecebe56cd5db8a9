/// The names a decide request may use, as query parameters (`GET /v1/decide`) and as JSON
/// members (`POST /v1/decide`), recognised straight from the request's bytes.
///
/// Both in-place readers (``DecideQuery`` and ``DecideBody``) take only these names, each at
/// most once; anything else sends the request to the full parser, which words the error.
enum DecideMemberName {
    case url, method, explain, sourceURL, targetFrame, navigationType

    /// The name `bytes[range]` spells exactly (case-sensitive, unescaped), or nil.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        func spells(_ name: StaticString) -> Bool {
            guard range.count == name.utf8CodeUnitCount, range.upperBound <= bytes.count else { return false }
            let expected = name.utf8Start
            for offset in 0..<range.count where bytes[range.lowerBound + offset] != expected[offset] { return false }
            return true
        }
        // The length picks the one candidate, so no name is compared byte by byte twice.
        switch range.count {
        case 3 where spells("url"): self = .url
        case 6 where spells("method"): self = .method
        case 7 where spells("explain"): self = .explain
        case 9 where spells("sourceURL"): self = .sourceURL
        case 11 where spells("targetFrame"): self = .targetFrame
        case 14 where spells("navigationType"): self = .navigationType
        default: return nil
        }
    }
}
