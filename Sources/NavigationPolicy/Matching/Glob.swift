/// A compiled wildcard pattern: chunks (``GlobChunk``) separated by `*`, anchored at both ends.
///
/// `*` matches any run of bytes, so a match exists exactly when the first chunk matches at
/// the start (unless the pattern starts with `*`), the last at the end (unless it ends with
/// `*`), and every chunk between them can be found in order, without overlap, in what is left.
/// Taking each middle chunk at its leftmost place never loses a match (a later place only
/// leaves less room for the rest), so one left-to-right pass decides: O(path + pattern) for
/// chunks without `?`, never the path times the pattern.
package struct Glob: Sendable, Equatable {
    let chunks: [GlobChunk]
    let leadingStar: Bool
    let trailingStar: Bool

    /// Builds the glob from pattern tokens (runs of `*` already merged into one ``PathPattern/Token/anyRun``).
    init(_ tokens: [PathPattern.Token]) {
        var chunks: [GlobChunk] = []
        var bytes: [UInt8] = []
        var isAny: [Bool] = []
        func flush() {
            chunks.append(GlobChunk(bytes: bytes, isAny: isAny))
            bytes = []
            isAny = []
        }
        for token in tokens {
            switch token {
            case .literal(let literal):
                bytes.append(contentsOf: literal)
                isAny.append(contentsOf: repeatElement(false, count: literal.count))
            case .anyOne:
                bytes.append(0)
                isAny.append(true)
            case .anyRun:
                flush()
            }
        }
        flush()
        self.leadingStar = tokens.first == .anyRun
        self.trailingStar = tokens.last == .anyRun
        // A leading or trailing `*` leaves an empty chunk at that end; it matches anywhere.
        self.chunks = chunks.filter { !$0.bytes.isEmpty }
    }

    /// Whether the whole subject matches.
    func matches(_ subject: UnsafeBufferPointer<UInt8>) -> Bool {
        var remaining = chunks[...]
        if !leadingStar && !trailingStar && chunks.count <= 1 {
            // No `*` at all: one chunk (or none, for an empty pattern) covering the whole subject.
            guard let only = chunks.first else { return subject.isEmpty }
            return only.count == subject.count && only.matches(subject, at: 0)
        }
        var lower = 0
        var upper = subject.count
        if !leadingStar, let first = remaining.first {
            guard first.matches(subject, at: 0) else { return false }
            lower = first.count
            remaining = remaining.dropFirst()
        }
        if !trailingStar, let last = remaining.last {
            guard upper - lower >= last.count, last.matches(subject, at: upper - last.count) else { return false }
            upper -= last.count
            remaining = remaining.dropLast()
        }
        for chunk in remaining {
            guard let start = chunk.firstMatch(in: subject, from: lower, to: upper) else { return false }
            lower = start + chunk.count
        }
        return true
    }
}
