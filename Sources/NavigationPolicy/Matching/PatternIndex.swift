/// Finds, for a request path, the few `pathPatterns` of one handler that could match it, so a
/// handler with many patterns does not try each of them against every path.
///
/// Each pattern is filed under one necessary condition, the most selective it has:
/// - the whole-segment part of its literal prefix (``PathPattern/indexKey``, `/api/v*` → `/api`),
///   looked up like a path prefix in a ``SegmentTrie`` (one hash per path segment);
/// - else a whole segment it requires anywhere (``PathPattern/requiredSegment``,
///   `/*/secret/*` → `secret`), looked up once per distinct segment of the path;
/// - else the literal bytes it ends with or starts with (`/*a*b7` → `b7`), cut to their last
///   (first) ``edgeKeyLength`` bytes so a request hashes at most that many path ends;
/// - else nothing (`/*a*`, `/?*`): such residual patterns are tried for every path, after the
///   others, and cost a pass over the path each.
///
/// Keys are folded: a case-sensitive pattern is then filed under a key that the folded path
/// of every path it matches has, which keeps the candidates a superset; the full match decides.
/// Every pattern is filed once and every list is visited at most once per request, so each
/// pattern is tried at most once.
struct PatternIndex: Sendable {
    /// Positions (in ``PathSet/patterns``) by the leading sub-path every path they match has.
    private var byPrefix = SegmentTrie<[Int32]>()
    /// Positions by a whole segment every path they match has.
    private var bySegment: [Substring: [Int32]] = [:]
    /// Bit `n` set when a key of `bySegment` is `n` bytes long (bit 63: 63 or more): a path
    /// segment of another length is not hashed. `/a/a/a/…` (4,000 one-byte segments) against
    /// `secretN` keys cost ~0.27 ms in hashes alone; with the filter it costs a length test each.
    private var segmentLengths: UInt64 = 0
    /// Positions by the (cut) literal bytes every path they match ends with.
    private var bySuffix: [Substring: [Int32]] = [:]
    /// Positions by the (cut) literal bytes every path they match starts with.
    private var byStart: [Substring: [Int32]] = [:]
    /// The byte lengths of the keys of `bySuffix` and `byStart` (at most ``edgeKeyLength`` each).
    private var suffixLengths: [Int] = []
    private var startLengths: [Int] = []
    /// Positions of patterns with no usable key, ascending: tried for every path.
    private(set) var residual: [Int32] = []

    /// The longest key taken from a pattern's literal start or end: a path has one end of each
    /// length, so this bounds the hashes per request (and their bytes) whatever the config.
    static let edgeKeyLength = 8

    init(_ patterns: [PathPattern]) {
        var suffixLengths: Set<Int> = []
        var startLengths: Set<Int> = []
        for (position, pattern) in patterns.enumerated() {
            let position = Int32(position)
            if pattern.indexKey != "/" {
                byPrefix.update(Substring(pattern.indexKey), initial: []) { $0.append(position) }
            } else if let segment = pattern.requiredSegment {
                bySegment[Substring(segment), default: []].append(position)
                segmentLengths |= Self.lengthBit(segment.utf8.count)
            } else if let suffix = Self.literalEnd(pattern) {
                bySuffix[suffix, default: []].append(position)
                suffixLengths.insert(suffix.utf8.count)
            } else if let start = Self.literalStart(pattern) {
                byStart[start, default: []].append(position)
                startLengths.insert(start.utf8.count)
            } else {
                residual.append(position)
            }
        }
        self.suffixLengths = suffixLengths.sorted()
        self.startLengths = startLengths.sorted()
    }

    /// The last bytes of a pattern that ends in a literal (then it has no directory form),
    /// folded and cut to ``edgeKeyLength``; nil when it ends in a wildcard.
    private static func literalEnd(_ pattern: PathPattern) -> Substring? {
        guard case .literal(let literal)? = pattern.tokens.last else { return nil }
        return folded(literal.suffix(edgeKeyLength))
    }

    /// The first bytes of a pattern, when more than the leading `/` is literal; folded and cut
    /// to ``edgeKeyLength``. A trailing `/` is left off when the pattern has a directory form
    /// (`/a?/*` also matches `/ab`), so the key is a start of both forms.
    private static func literalStart(_ pattern: PathPattern) -> Substring? {
        guard case .literal(let literal)? = pattern.tokens.first else { return nil }
        var start = literal.prefix(edgeKeyLength)
        if pattern.directory != nil, start.last == UInt8(ascii: "/") { start = start.dropLast() }
        return start.count > 1 ? folded(start) : nil
    }

    private static func lengthBit(_ length: Int) -> UInt64 { 1 << UInt64(min(length, 63)) }

    private static func folded(_ bytes: ArraySlice<UInt8>) -> Substring {
        Substring(asciiLowercased(String(decoding: bytes, as: UTF8.self)))
    }

    /// Calls `visit` with each list of candidate positions for `folded` (the folded match form of
    /// a path), residual patterns last, until `visit` returns true; returns whether it did.
    /// Each list comes at most once, and each position is in one list.
    @discardableResult
    func anyCandidates(_ folded: Substring, _ visit: ([Int32]) -> Bool) -> Bool {
        let utf8 = folded.utf8
        if !byPrefix.isEmpty, byPrefix.anyLeadingSubpath(of: folded, visit) { return true }
        if !bySegment.isEmpty, utf8.first == UInt8(ascii: "/") {
            // Each distinct segment once: `/a/a/a/…` must not visit the list filed under `a`
            // once per repeat (tries would grow with the path times the list).
            var seen: Set<Substring> = []
            var found = false
            // Segment bounds by a byte scan: slicing each segment as a `Substring` (what
            // `SegmentTrie.forEachSegment` does) cost ~30 ns a segment, 1 ms for 32 KB of `a/`.
            var text = folded
            text.withUTF8 { bytes in
                var start = 0
                while start < bytes.count, !found {
                    var end = start
                    while end < bytes.count, bytes[end] != UInt8(ascii: "/") { end += 1 }
                    if end > start, segmentLengths & Self.lengthBit(end - start) != 0 {
                        let lower = utf8.index(utf8.startIndex, offsetBy: start)
                        let segment = folded[lower..<utf8.index(lower, offsetBy: end - start)]
                        if let list = bySegment[segment], seen.insert(segment).inserted { found = visit(list) }
                    }
                    start = end + 1
                }
            }
            if found { return true }
        }
        for length in suffixLengths {
            guard length <= utf8.count else { break }
            let start = utf8.index(utf8.endIndex, offsetBy: -length)
            if let list = bySuffix[folded[start...]], visit(list) { return true }
        }
        for length in startLengths {
            guard length <= utf8.count else { break }
            let end = utf8.index(utf8.startIndex, offsetBy: length)
            if let list = byStart[folded[..<end]], visit(list) { return true }
        }
        return !residual.isEmpty && visit(residual)
    }
}
