#if canImport(Glibc)
    import Glibc
#endif

/// The names a decide request may use, as query parameters (`GET /v1/decide`) and as JSON
/// members (`POST /v1/decide`), recognised straight from the request's bytes.
///
/// Both in-place readers (``DecideQuery`` and ``DecideBody``) take only these names, each at
/// most once; anything else sends the request to the full parser, which words the error.
enum DecideMemberName {
    case url, method, explain, sourceURL, targetFrame, navigationType

    /// The name `bytes[range]` spells exactly (case-sensitive, unescaped), or nil.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        func spells(_ name: StaticString) -> Bool { Self.spells(bytes, range, name) }
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

    /// Whether `bytes[range]` is exactly `name` (a multi-character literal: pointer form).
    static func spells(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount, range.lowerBound >= 0, range.upperBound <= bytes.count else {
            return false
        }
        // The range was checked to lie inside `bytes` just above; an empty one compares equal.
        guard let base = bytes.baseAddress else { return range.isEmpty }
        return memcmp(base + range.lowerBound, name.utf8Start, range.count) == 0
    }
}

/// One slot per decide member, each filled at most once: what an in-place reader collects
/// (offsets into a query, or JSON values in a body).
struct DecideMembers<Slot> {
    var url: Slot?
    var method: Slot?
    var navigationType: Slot?
    var targetFrame: Slot?
    var sourceURL: Slot?
    var explain: Slot?

    /// Stores `value` under `name` when the name is seen for the first time; false for a
    /// repeat, which the full reading refuses with its own wording.
    mutating func assign(_ name: DecideMemberName, _ value: Slot) -> Bool {
        func store(_ slot: inout Slot?) -> Bool {
            guard slot == nil else { return false }
            slot = value
            return true
        }
        switch name {
        case .url: return store(&url)
        case .method: return store(&method)
        case .explain: return store(&explain)
        case .sourceURL: return store(&sourceURL)
        case .targetFrame: return store(&targetFrame)
        case .navigationType: return store(&navigationType)
        }
    }
}
