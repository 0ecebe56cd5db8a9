import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyPatterns

/// The property tables (ICU 78's sets, Unicode 17.0.0) against a second derivation of a sample of
/// properties — General_Category from unicodedata2, Script and Script_Extensions from fonttools'
/// Scripts-17.0.0.txt data, binary properties from the `regex` module — that
/// `scripts/generate-unicode-properties.py` writes to `Resources/unicode-properties-oracle.json`.
/// The sets must be equal range for range (every code point); the compiled expression is checked
/// on scalars: near every range boundary in the sample run, on every scalar in the full run.
@Suite(.tags(.volume))
struct RegexUnicodePropertyOracleTests {
    struct Entry: Sendable, CustomStringConvertible {
        let property: String
        let ranges: [ClosedRange<UInt32>]
        var description: String { property }
    }

    static func entries() throws -> [Entry] {
        try TestResources.jsonArray("unicode-properties-oracle.json").map { item in
            guard let object = item as? [String: Any], let property = object["property"] as? String,
                let pairs = object["ranges"] as? [[Int]]
            else { throw TestResources.MissingResource(name: "unicode-properties-oracle.json (malformed entry)") }
            return Entry(property: property, ranges: pairs.map { UInt32($0[0])...UInt32($0[1]) })
        }
    }

    @Test("the oracle covers every property family")
    func oracleCoversFamilies() throws {
        let names = try Self.entries().map(\.property)
        #expect(names.count == 13)
        #expect(names.contains("Lu") && names.contains("L") && names.contains("scx=Deva") && names.contains("Emoji"))
    }

    @Test("every code point of each sampled property agrees with the second derivation", arguments: try entries())
    func agreesWithOracle(_ entry: Entry) throws {
        let parts = entry.property.split(separator: "=").map(String.init)
        let lookup = UnicodeProperty.lookup(name: parts.count == 2 ? parts[0] : nil, value: parts.last ?? "")
        guard case .set(let set) = lookup else {
            Issue.record("\\p{\(entry.property)} does not resolve: \(lookup)")
            return
        }
        #expect(set.ranges == RegexScalarSet(entry.ranges).ranges, "\\p{\(entry.property)}: the ranges differ")

        let positive = try ECMARegex("^\\p{\(entry.property)}$", unicodeSets: true)
        let negative = try ECMARegex("^\\P{\(entry.property)}$")
        let oracle = RegexScalarSet(entry.ranges)
        var checked = 0
        for scalar in Self.scalarsToCheck(entry.ranges) {
            guard let value = Unicode.Scalar(scalar) else { continue }  // surrogates: no String holds them
            let text = String(Character(value))
            let expected = oracle.contains(scalar)
            if positive.matches(text) != expected || negative.matches(text) == expected {
                Issue.record("\\p{\(entry.property)} on U+\(String(scalar, radix: 16, uppercase: true)): expected \(expected)")
            }
            checked += 1
        }
        #expect(checked > 0)
    }

    /// Every scalar in the full run; else each range's ends and their neighbours, and a stride.
    static func scalarsToCheck(_ ranges: [ClosedRange<UInt32>]) -> [UInt32] {
        if TestVolume.isFull { return Array(0...RegexScalarSet.maxScalar) }
        var scalars: Set<UInt32> = []
        for range in ranges {
            for scalar in [range.lowerBound &- 1, range.lowerBound, range.upperBound, range.upperBound &+ 1]
            where scalar <= RegexScalarSet.maxScalar {
                scalars.insert(scalar)
            }
        }
        scalars.formUnion(stride(from: 0, through: RegexScalarSet.maxScalar, by: 997))
        return scalars.sorted()
    }
}
