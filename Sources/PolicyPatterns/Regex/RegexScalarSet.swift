/// A set of Unicode scalar values as sorted, disjoint, non-adjacent closed ranges: what one
/// character, escape or class of a regular expression matches.
struct RegexScalarSet: Hashable, Sendable {
    static let maxScalar: UInt32 = 0x10FFFF

    /// Sorted, disjoint and non-adjacent (normalized by every initializer and operation).
    private(set) var ranges: [ClosedRange<UInt32>]

    static let empty = RegexScalarSet(normalized: [])
    static let all = RegexScalarSet(normalized: [0...maxScalar])

    private init(normalized: [ClosedRange<UInt32>]) { ranges = normalized }

    /// Normalizes any list of ranges (unsorted, overlapping, adjacent).
    init(_ unsorted: [ClosedRange<UInt32>]) {
        let sorted = unsorted.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<UInt32>] = []
        merged.reserveCapacity(sorted.count)
        for range in sorted {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        ranges = merged
    }

    init(scalar: UInt32) { ranges = [scalar...scalar] }

    var isEmpty: Bool { ranges.isEmpty }

    /// Binary search over the ranges.
    func contains(_ scalar: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = low + (high - low) / 2
            let range = ranges[mid]
            if scalar < range.lowerBound {
                high = mid
            } else if scalar > range.upperBound {
                low = mid + 1
            } else {
                return true
            }
        }
        return false
    }

    func union(_ other: RegexScalarSet) -> RegexScalarSet { RegexScalarSet(ranges + other.ranges) }

    /// Everything from U+0000 to U+10FFFF that is not in the set.
    func inverted() -> RegexScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            if range.upperBound >= Self.maxScalar { return RegexScalarSet(normalized: result) }
            next = range.upperBound + 1
        }
        result.append(next...Self.maxScalar)
        return RegexScalarSet(normalized: result)
    }

    func intersection(_ other: RegexScalarSet) -> RegexScalarSet {
        inverted().union(other.inverted()).inverted()
    }

    func subtracting(_ other: RegexScalarSet) -> RegexScalarSet {
        intersection(other.inverted())
    }

    /// The set closed under simple case folding as the matcher uses it: it tests the folded input
    /// scalar, so each member's fold joins the set (ECMAScript's Canonicalize with `u` and `i`:
    /// a class matches when some member folds to what the input folds to).
    func addingCaseFolds() -> RegexScalarSet {
        var extra: [ClosedRange<UInt32>] = []
        // Config load compiles thousands of these (every letter of a pattern under `i`, every
        // `[^/]` segment wildcard): walking the whole ~1,400-pair folding table for each made
        // 3,000 urlPatterns take seconds. Small sets and sets with a small complement are
        // folded member by member instead, with the same result.
        if Self.count(of: ranges, upTo: Self.foldMembersDirectly) <= Self.foldMembersDirectly {
            for range in ranges {
                for scalar in range {
                    let folded = RegexCaseFolding.fold(scalar)
                    if folded != scalar && !contains(folded) { extra.append(folded...folded) }
                }
            }
        } else if Self.count(of: inverted().ranges, upTo: Self.foldMembersDirectly) <= Self.foldMembersDirectly {
            // A fold can only add a scalar the set lacks: one of the few outside it, added when
            // a member folds to it.
            for range in inverted().ranges {
                for missing in range where RegexCaseFolding.anyScalar(foldingTo: missing, where: contains) {
                    extra.append(missing...missing)
                }
            }
        } else {
            RegexCaseFolding.forEachPair { scalar, folded in
                if contains(scalar) && !contains(folded) { extra.append(folded...folded) }
            }
        }
        return extra.isEmpty ? self : RegexScalarSet(ranges + extra)
    }

    /// Up to this many members, folding each is cheaper than walking the folding table.
    private static let foldMembersDirectly = 64

    /// How many scalars `ranges` hold, counted only up to just past `limit`.
    private static func count(of ranges: [ClosedRange<UInt32>], upTo limit: Int) -> Int {
        var count = 0
        for range in ranges {
            count += Int(range.upperBound - range.lowerBound) + 1
            if count > limit { break }
        }
        return count
    }
}

extension RegexScalarSet {
    /// `\d`: the ASCII digits.
    static let digits = RegexScalarSet([0x30...0x39])
    /// `\w` without `i`: ASCII letters, digits and `_`.
    static let wordCharacters = RegexScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// `\w` with `u` and `i`: also U+017F (ſ) and U+212A (Kelvin sign), whose simple case folds
    /// are the ASCII word characters `s` and `k` (ECMAScript's WordCharacters).
    static let wordCharactersIgnoringCase = wordCharacters.union(RegexScalarSet([0x17F...0x17F, 0x212A...0x212A]))
    /// `\s`: ECMAScript's WhiteSpace and LineTerminator.
    static let whiteSpace = RegexScalarSet([
        0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A, 0x2028...0x2029,
        0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ])
    /// `.` without the `s` flag: every scalar but the line terminators.
    static let dot = RegexScalarSet([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029]).inverted()
}
