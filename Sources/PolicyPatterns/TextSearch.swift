/// Text searched for text: what `_StringProcessing`'s `contains(_:)`, `replacing(_:with:)` and
/// `split(separator:)` do with a string argument, for the core's layers, which also compile as
/// Embedded Swift (the WebAssembly build), whose standard library has no `_StringProcessing`
/// (docs/architecture.md, "The core as Embedded Swift").
///
/// Compared `Character` by `Character`, as those are, so every result is theirs (a combining
/// mark after a match makes it no match; canonically equivalent spellings match); found left to
/// right without overlaps. In the patterns layer, the lowest that searches text, so that every
/// layer above uses these and the native and WebAssembly builds search alike.
extension StringProtocol {
    /// Whether `other` occurs in this text (an empty `other` always does).
    package func contains(substring other: some StringProtocol) -> Bool {
        firstRange(ofSubstring: other, from: startIndex) != nil
    }

    /// This text with every occurrence of `target` (not empty) replaced by `replacement`.
    package func replacing(every target: some StringProtocol, with replacement: some StringProtocol) -> String {
        var result = ""
        var rest = startIndex
        while let found = firstRange(ofSubstring: target, from: rest), !found.isEmpty {
            result += self[rest..<found.lowerBound]
            result += replacement
            rest = found.upperBound
        }
        result += self[rest...]
        return result
    }

    /// The pieces between the occurrences of `separator` (not empty), empty ones included:
    /// `split(separator:omittingEmptySubsequences: false)`.
    package func split(atEvery separator: some StringProtocol) -> [SubSequence] {
        var pieces: [SubSequence] = []
        var rest = startIndex
        while let found = firstRange(ofSubstring: separator, from: rest), !found.isEmpty {
            pieces.append(self[rest..<found.lowerBound])
            rest = found.upperBound
        }
        pieces.append(self[rest...])
        return pieces
    }

    /// The first occurrence of `other` at or after `start`, or nil.
    private func firstRange(ofSubstring other: some StringProtocol, from start: Index) -> Range<Index>? {
        guard let first = other.first else { return start..<start }
        var candidate = start
        while let found = self[candidate...].firstIndex(of: first) {
            var mine = found
            var theirs = other.startIndex
            while theirs != other.endIndex, mine != endIndex, self[mine] == other[theirs] {
                formIndex(after: &mine)
                other.formIndex(after: &theirs)
            }
            if theirs == other.endIndex { return found..<mine }
            // The text ended before `other` did: no later start has more text left.
            if mine == endIndex { return nil }
            candidate = index(after: found)
        }
        return nil
    }
}
