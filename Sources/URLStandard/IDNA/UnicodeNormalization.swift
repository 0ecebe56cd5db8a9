/// Unicode Normalization Form C (UAX #15) over arrays of scalar values, from the generated
/// `IDNATables`: full canonical decomposition, canonical ordering, canonical composition, with
/// Hangul syllables decomposed and composed algorithmically.
enum UnicodeNormalization {
    static let combiningClasses = CodePointTable(PackedTable.decode(IDNATables.combiningClasses), propertyTable: true)
    static let decompositionKeys = CodePointTable(PackedTable.decode(IDNATables.decompositionKeys), propertyTable: false)
    static let decompositionValues = PackedTable.decode(IDNATables.decompositionValues)
    static let decompositionScalars = PackedTable.decode(IDNATables.decompositionScalars)

    /// Primary composites keyed by `first << 21 | second`, ascending, and the composite per key.
    static let compositions: (keys: [UInt64], composites: [UInt32]) = {
        let words = PackedTable.decode(IDNATables.compositions)
        var keys: [UInt64] = []
        var composites: [UInt32] = []
        keys.reserveCapacity(words.count / 3)
        composites.reserveCapacity(words.count / 3)
        var index = 0
        while index + 2 < words.count {
            keys.append(UInt64(words[index]) << 21 | UInt64(words[index + 1]))
            composites.append(words[index + 2])
            index += 3
        }
        return (keys, composites)
    }()

    // Hangul syllable constants (Unicode §3.12).
    static let hangulSBase: UInt32 = 0xAC00
    static let hangulLBase: UInt32 = 0x1100
    static let hangulVBase: UInt32 = 0x1161
    static let hangulTBase: UInt32 = 0x11A7
    static let hangulLCount: UInt32 = 19
    static let hangulVCount: UInt32 = 21
    static let hangulTCount: UInt32 = 28
    static let hangulNCount: UInt32 = 21 * 28
    static let hangulSCount: UInt32 = 19 * 21 * 28

    static let quickCheck = CodePointTable(PackedTable.decode(IDNATables.nfcQuickCheck), propertyTable: true)

    /// Whether `scalar` may make text non-NFC (NFC_Quick_Check No or Maybe, or a combining
    /// mark); text without any such scalar is NFC (the quick check of UAX #15).
    @inline(__always)
    static func mayNeedNormalization(_ scalar: UInt32) -> Bool {
        scalar >= 0x300 && quickCheck.property(of: scalar) != 0
    }

    /// Canonical_Combining_Class of a scalar (0 for starters).
    @inline(__always)
    static func combiningClass(_ scalar: UInt32) -> UInt8 {
        if scalar < 0x300 { return 0 }
        return combiningClasses.property(of: scalar)
    }

    /// Whether `scalars` is already in NFC (by normalizing; hosts are short).
    static func isNFC(_ scalars: [UInt32]) -> Bool {
        nfc(scalars) == scalars
    }

    /// The NFC form of `scalars` (the same array, uncopied, when it is already NFC).
    static func nfc(_ scalars: [UInt32]) -> [UInt32] {
        // Nothing below U+0300 decomposes into something that does not recompose, and no
        // combining mark lies below it, so such text is already NFC (UAX #15 quick check).
        if !scalars.contains(where: mayNeedNormalization) { return scalars }
        var decomposed: [UInt32] = []
        decomposed.reserveCapacity(scalars.count + 8)
        for scalar in scalars { decompose(scalar, into: &decomposed) }
        var classes = decomposed.map(combiningClass)
        reorder(&decomposed, classes: &classes)
        return compose(decomposed, classes: classes)
    }

    /// Appends the full canonical decomposition of `scalar`.
    static func decompose(_ scalar: UInt32, into out: inout [UInt32]) {
        if scalar < 0xC0 {
            out.append(scalar)
            return
        }
        if scalar >= hangulSBase && scalar < hangulSBase + hangulSCount {
            let index = scalar - hangulSBase
            out.append(hangulLBase + index / hangulNCount)
            out.append(hangulVBase + (index % hangulNCount) / hangulTCount)
            let trailing = index % hangulTCount
            if trailing != 0 { out.append(hangulTBase + trailing) }
            return
        }
        guard let index = decompositionKeys.lastIndex(atOrBelow: scalar),
            decompositionKeys.words[index] == scalar, index < decompositionValues.count
        else {
            out.append(scalar)
            return
        }
        let word = decompositionValues[index]
        let offset = Int(word >> 8)
        let length = Int(word & 0xFF)
        guard offset + length <= decompositionScalars.count else {
            out.append(scalar)
            return
        }
        out.append(contentsOf: decompositionScalars[offset..<(offset + length)])
    }

    /// Canonical ordering: a stable sort by combining class of each run of non-starters.
    static func reorder(_ scalars: inout [UInt32], classes: inout [UInt8]) {
        guard scalars.count == classes.count, scalars.count > 1 else { return }
        var start = 0
        while start < scalars.count {
            guard classes[start] != 0 else {
                start += 1
                continue
            }
            var end = start + 1
            while end < scalars.count, classes[end] != 0 { end += 1 }
            if end - start > 1 { sortRun(start..<end, &scalars, &classes) }
            start = end
        }
    }

    /// A run longer than this is sorted by (class, position) rather than by insertion.
    static let longestInsertionSortedRun = 16

    /// One run of non-starters, sorted stably by class. Insertion sort suits the usual run of a
    /// mark or two, but costs quadratic time on a long run of alternating classes: a host of
    /// one letter and 16,000 marks took 34 ms a decision natively and 270 ms in WebAssembly
    /// (outside attack round 11, F3). A long run is sorted as (class, position) pairs, which
    /// is stable by construction, in n log n.
    private static func sortRun(_ run: Range<Int>, _ scalars: inout [UInt32], _ classes: inout [UInt8]) {
        guard run.count > longestInsertionSortedRun else {
            for position in run.dropFirst() {
                let currentClass = classes[position]
                let current = scalars[position]
                var insertAt = position
                while insertAt > run.lowerBound, classes[insertAt - 1] > currentClass {
                    scalars[insertAt] = scalars[insertAt - 1]
                    classes[insertAt] = classes[insertAt - 1]
                    insertAt -= 1
                }
                scalars[insertAt] = current
                classes[insertAt] = currentClass
            }
            return
        }
        let order = run.map { UInt64(classes[$0]) << 32 | UInt64($0) }.sorted()
        let sortedScalars = order.map { scalars[Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF)] }
        for (offset, key) in order.enumerated() {
            scalars[run.lowerBound + offset] = sortedScalars[offset]
            classes[run.lowerBound + offset] = UInt8(truncatingIfNeeded: key >> 32)
        }
    }

    /// Canonical composition of a decomposed, canonically ordered sequence.
    static func compose(_ scalars: [UInt32], classes: [UInt8]) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(scalars.count)
        var starterPosition = -1
        var lastClass: UInt8 = 0
        for (scalar, currentClass) in zip(scalars, classes) {
            if starterPosition >= 0, starterPosition < out.count {
                // Not blocked: adjacent to the starter, or every mark in between has a lower,
                // non-zero class (a class-0 character in between would be the starter itself).
                let adjacent = starterPosition == out.count - 1
                if adjacent || (lastClass != 0 && lastClass < currentClass),
                    let composite = composePair(out[starterPosition], scalar)
                {
                    out[starterPosition] = composite
                    continue
                }
            }
            if currentClass == 0 { starterPosition = out.count }
            lastClass = currentClass
            out.append(scalar)
        }
        return out
    }

    /// The primary composite of `first` followed by `second`, if there is one.
    static func composePair(_ first: UInt32, _ second: UInt32) -> UInt32? {
        // Hangul LV and LVT syllables.
        if first >= hangulLBase && first < hangulLBase + hangulLCount
            && second >= hangulVBase && second < hangulVBase + hangulVCount
        {
            return hangulSBase + ((first - hangulLBase) * hangulVCount + (second - hangulVBase)) * hangulTCount
        }
        if first >= hangulSBase && first < hangulSBase + hangulSCount && (first - hangulSBase) % hangulTCount == 0
            && second > hangulTBase && second < hangulTBase + hangulTCount
        {
            return first + (second - hangulTBase)
        }
        let key = UInt64(first) << 21 | UInt64(second)
        let table = compositions
        var low = 0
        var high = table.keys.count
        while low < high {
            let mid = low + (high - low) / 2
            if table.keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        guard low < table.keys.count, table.keys[low] == key, low < table.composites.count else { return nil }
        return table.composites[low]
    }
}
