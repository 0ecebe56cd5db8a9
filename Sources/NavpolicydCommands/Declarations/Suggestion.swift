/// "Did you mean": the closest known name to what was typed, by edit distance.
package enum Suggestion {
    /// The candidate nearest to `typed` if it is close enough to be a typo (at most a third of
    /// its length, and at most 3 edits); nil when nothing is.
    package static func closest(to typed: String, in candidates: [String]) -> String? {
        let limit = min(3, max(1, typed.count / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, candidate)
            if distance <= limit, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance over characters, one row at a time.
    package static func editDistance(_ first: String, _ second: String) -> Int {
        let a = Array(first)
        let b = Array(second)
        var previous = Array(0...b.count)
        for (i, characterOfA) in a.enumerated() {
            var current = [i + 1]
            current.reserveCapacity(b.count + 1)
            for (j, characterOfB) in b.enumerated() {
                let substitution = previous[j] + (characterOfA == characterOfB ? 0 : 1)
                current.append(min(substitution, previous[j + 1] + 1, current[j] + 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
