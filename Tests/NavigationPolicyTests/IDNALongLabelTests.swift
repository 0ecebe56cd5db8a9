import PolicyHarness
import Testing

@testable import URLStandard

/// Punycode and canonical ordering on long labels (outside attack round 11, F3): the engine's
/// n log n versions against RFC 3492's and UAX #15's direct algorithms, kept here as the
/// reference, on random labels of every shape those algorithms make expensive.
struct IDNALongLabelTests {
    /// RFC 3492 §6.3 as written: one walk over the label per distinct code point.
    static func referenceEncode(_ input: [UInt32]) -> [UInt8]? {
        var out: [UInt8] = []
        let basic = input.filter { $0 < 0x80 }
        out += basic.map { UInt8($0) }
        var handled = UInt32(basic.count)
        if !basic.isEmpty { out.append(0x2D) }
        var n: UInt32 = 0x80
        var delta: UInt32 = 0
        var bias: UInt32 = 72
        while handled < UInt32(input.count) {
            guard let m = input.filter({ $0 >= n }).min() else { return nil }
            let (steps, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= UInt32.max - steps else { return nil }
            delta += steps
            n = m
            for scalar in input {
                if scalar < n {
                    guard delta < UInt32.max else { return nil }
                    delta += 1
                }
                if scalar == n {
                    var q = delta
                    var k: UInt32 = 36
                    while true {
                        let t = k <= bias ? 1 : (k >= bias + 26 ? 26 : k - bias)
                        if q < t { break }
                        out.append(digit(t + (q - t) % (36 - t)))
                        q = (q - t) / (36 - t)
                        k += 36
                    }
                    out.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == UInt32(basic.count))
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return out
    }

    /// RFC 3492 §6.2's insertions, one at a time into the output.
    static func referenceInsertions(basic: [UInt32], _ insertions: [(value: UInt32, index: Int)]) -> [UInt32] {
        var output = basic
        for insertion in insertions { output.insert(insertion.value, at: insertion.index) }
        return output
    }

    static func digit(_ value: UInt32) -> UInt8 { value < 26 ? UInt8(value) + 0x61 : UInt8(value - 26) + 0x30 }

    static func adapt(_ delta: UInt32, _ points: UInt32, _ first: Bool) -> UInt32 {
        var delta = first ? delta / 700 : delta / 2
        delta += delta / points
        var k: UInt32 = 0
        while delta > 455 {
            delta /= 35
            k += 36
        }
        return k + 36 * delta / (delta + 38)
    }

    /// UAX #15's canonical ordering as a plain insertion sort over the whole sequence.
    static func referenceReorder(_ scalars: [UInt32]) -> [UInt32] {
        var scalars = scalars
        var classes = scalars.map(UnicodeNormalization.combiningClass)
        for position in scalars.indices.dropFirst() where classes[position] != 0 {
            var at = position
            while at > 0, classes[at - 1] > classes[at] {
                scalars.swapAt(at, at - 1)
                classes.swapAt(at, at - 1)
                at -= 1
            }
        }
        return scalars
    }

    /// Labels of `count` scalars drawn from `pool`, some with basic code points mixed in.
    static func labels(count: Int, pool: [UInt32], seed: UInt64) -> [[UInt32]] {
        var generator = HarnessRandom(state: seed)
        return (0..<40).map { round in
            (0..<count).map { _ in
                round % 3 == 0 && Bool.random(using: &generator)
                    ? UInt32.random(in: 0x61...0x7A, using: &generator) : generator.pick(pool)
            }
        }
    }

    @Test(arguments: [1, 2, 5, 17, 64, 400])
    func encodingIsRFC3492s(count: Int) {
        let wide = (0..<3_000).map { UInt32(0x4E00 + $0) }
        let few: [UInt32] = [0xE9, 0xFC, 0x3B1, 0x10348]
        for (pool, seed) in [(wide, UInt64(count)), (few, UInt64(count) + 1000)] {
            for label in Self.labels(count: count, pool: pool, seed: seed) {
                var encoded: [UInt8] = []
                let succeeded = Punycode.encode(label[...], into: &encoded)
                let expected = Self.referenceEncode(label)
                #expect(succeeded == (expected != nil))
                if let expected { #expect(encoded == expected, "\(label.prefix(8))…") }
                if succeeded, label.contains(where: { $0 >= 0x80 }) {
                    #expect(Punycode.decode(encoded[...]) == label)
                }
            }
        }
    }

    @Test func decodingPlacesEveryInsertionWhereRFC3492Would() {
        // Distinct code points in falling order: each is inserted at the front.
        let falling = (0..<1_500).map { UInt32(0x9FFF - $0) }
        var encoded: [UInt8] = []
        #expect(Punycode.encode(falling[...], into: &encoded))
        #expect(Punycode.decode(encoded[...]) == falling)
        // Random insertion orders, checked against inserting one at a time.
        var generator = HarnessRandom(state: 7)
        for _ in 0..<50 {
            let basic = (0..<generator.below(21)).map { _ in UInt32(0x61 + generator.below(26)) }
            var insertions: [(value: UInt32, index: Int)] = []
            for inserted in 0..<(1 + generator.below(200)) {
                insertions.append((UInt32(0x80 + generator.below(0x2F80)), generator.below(basic.count + inserted + 1)))
            }
            let label = Self.referenceInsertions(basic: basic, insertions)
            var encoded: [UInt8] = []
            #expect(Punycode.encode(label[...], into: &encoded))
            #expect(Punycode.decode(encoded[...]) == label)
        }
    }

    @Test(arguments: [3, 17, 40, 500])
    func canonicalOrderingIsUAX15s(runLength: Int) {
        // Marks of classes 220, 230, 202, 1 and 9, starters between runs.
        let marks: [UInt32] = [0x316, 0x301, 0x327, 0x334, 0x94D]
        var generator = HarnessRandom(state: UInt64(runLength))
        for _ in 0..<30 {
            var scalars: [UInt32] = []
            for _ in 0..<3 {
                scalars.append(UInt32.random(in: 0x61...0x7A, using: &generator))
                scalars += (0..<runLength).map { _ in generator.pick(marks) }
            }
            var reordered = scalars
            var classes = scalars.map(UnicodeNormalization.combiningClass)
            UnicodeNormalization.reorder(&reordered, classes: &classes)
            #expect(reordered == Self.referenceReorder(scalars))
            #expect(classes == reordered.map(UnicodeNormalization.combiningClass))
        }
    }

    @Test func longHostsAreCanonicalizedAsTheReferenceDoes() throws {
        // The attack's shapes (at the URL's 32 KiB, 16,000 alternating marks after one letter, and
        // 10,000 distinct CJK scalars in one label; bench/worst-case-decision.sh times those),
        // at sizes the quadratic references finish quickly in a debug build.
        var marks: [UInt32] = [0x61]
        for _ in 0..<1_000 { marks += [0x316, 0x301] }
        let ordered = Self.referenceReorder(marks)
        let expectedMarks = UnicodeNormalization.compose(ordered, classes: ordered.map(UnicodeNormalization.combiningClass))
        #expect(UnicodeNormalization.nfc(marks) == expectedMarks)
        let cjk = (0..<1_500).map { UInt32(0x4E00 + ($0 * 7919) % 20_000) }
        let host = try IDNA.toASCII(scalars: cjk + [0x2E, 0x63, 0x6F, 0x6D])
        #expect(host == Array("xn--".utf8) + Self.referenceEncode(cjk)! + Array(".com".utf8))
    }
}

/// The block index of the Unicode tables (outside attack round 12, F1) finds what a binary
/// search over the whole table finds, for every table a host is looked up in.
struct CodePointTableTests {
    static let tables: [(name: String, table: CodePointTable, propertyTable: Bool)] = [
        ("mapping", IDNAMapping.starts, false), ("decompositions", UnicodeNormalization.decompositionKeys, false),
        ("combining classes", UnicodeNormalization.combiningClasses, true),
        ("quick check", UnicodeNormalization.quickCheck, true), ("marks", IDNA.marks, true),
        ("bidi classes", BidiRule.classes, true), ("joining types", ContextJRule.joiningTypes, true),
    ]

    /// Every code point of the first three planes, every block's edges, and a stride of the rest.
    static let scalars: [UInt32] =
        Array(0..<0x3_0000) + (0..<0x1101).flatMap { block in [UInt32(block) << 8, (UInt32(block) << 8) &- 1] }
        + Array(stride(from: 0x3_0000, through: 0x11_0100, by: 61)) + [0x10_FFFF, 0x11_0000, UInt32.max]

    @Test(arguments: tables.indices)
    func blockIndexFindsWhatTheWholeTableSearchFinds(_ which: Int) {
        let (name, table, propertyTable) = Self.tables[which]
        var differences = 0
        for scalar in Self.scalars {
            let key = propertyTable ? (scalar << 8) | 0xFF : scalar
            if table.lastIndex(atOrBelow: scalar) != PackedTable.lastIndex(atOrBelow: key, in: table.words) {
                differences += 1
            }
        }
        #expect(differences == 0, "\(name)")
    }
}
