/// ECMAScript's Unicode properties for `\p{…}` and `\P{…}`: what a property expression names, and
/// its set of scalars, from the generated ``UnicodePropertyTables`` (the IDNA tables' Unicode version).
///
/// Names are matched exactly, as ECMAScript requires (no loose matching: `\p{letter}` and
/// `\p{Script=latin}` are errors); an unknown name comes back with the exactly spelled one it
/// loosely resembles, for the error message.
enum UnicodeProperty {
    /// What a property expression (`Name=Value` or a lone name) stands for.
    enum Lookup: Equatable {
        /// The scalars with the property (before negation and case folding).
        case set(RegexScalarSet)
        /// One of the `v` flag's properties of strings (`RGI_Emoji`, …), which match sequences.
        case propertyOfStrings
        /// `Name` is not General_Category, Script or Script_Extensions (or an alias).
        case unknownName(suggestion: String?)
        /// A lone name that is neither a General_Category value nor a binary property, or a value
        /// its property does not have.
        case unknownValue(suggestion: String?)
    }

    /// Looks up `\p{name=value}`, or `\p{value}` when `name` is nil.
    static func lookup(name: String?, value: String) -> Lookup {
        let tables = UnicodePropertyTables.self
        guard let name else {
            if let line = lineListing(value, in: tables.generalCategoryNames) { return .set(scalars(ofSet: line)) }
            if let line = lineListing(value, in: tables.binaryPropertyNames) {
                return .set(scalars(ofSet: tables.binarySetBase + line))
            }
            if lineListing(value, in: tables.propertiesOfStringsNames) != nil { return .propertyOfStrings }
            let suggestion =
                looseMatch(value, in: tables.generalCategoryNames) ?? looseMatch(value, in: tables.binaryPropertyNames)
                ?? looseMatch(value, in: tables.propertiesOfStringsNames)
                ?? looseMatch(value, in: tables.scriptNames).map { "Script=" + $0 }
            return .unknownValue(suggestion: suggestion)
        }
        let family: (values: StaticString, base: Int)
        switch name {
        case "General_Category", "gc": family = (tables.generalCategoryNames, 0)
        case "Script", "sc": family = (tables.scriptNames, tables.scriptSetBase)
        case "Script_Extensions", "scx": family = (tables.scriptNames, tables.scriptExtensionsSetBase)
        default:
            let known: [String] = ["General_Category", "gc", "Script", "sc", "Script_Extensions", "scx"]
            return .unknownName(suggestion: known.first { loose(Array($0.utf8)) == loose(Array(name.utf8)) })
        }
        guard let line = lineListing(value, in: family.values) else {
            return .unknownValue(suggestion: looseMatch(value, in: family.values))
        }
        return .set(scalars(ofSet: family.base + line))
    }

    // MARK: - The name tables

    /// The line of `table` (one property value per line, its aliases separated by spaces) that
    /// lists `name` exactly.
    static func lineListing(_ name: String, in table: StaticString) -> Int? {
        let target = Array(name.utf8)
        return firstName(in: table) { $0.elementsEqual(target) }?.line
    }

    /// The alias in `table` that `name` matches only loosely (ignoring case, `_`, `-` and spaces).
    private static func looseMatch(_ name: String, in table: StaticString) -> String? {
        let target = loose(Array(name.utf8))
        return firstName(in: table) { loose(Array($0)) == target }?.name
    }

    private static func loose(_ bytes: [UInt8]) -> [UInt8] {
        bytes.compactMap { byte in
            switch byte {
            case 0x5F, 0x2D, 0x20: return nil
            case 0x41...0x5A: return byte + 0x20
            default: return byte
            }
        }
    }

    /// The first alias of `table` that `matches`, with its line.
    private static func firstName(
        in table: StaticString, where matches: (Slice<UnsafeBufferPointer<UInt8>>) -> Bool
    ) -> (line: Int, name: String)? {
        table.withUTF8Buffer { bytes -> (line: Int, name: String)? in
            var line = 0
            var tokenStart = 0
            for index in 0...bytes.count {
                let byte = index < bytes.count ? bytes[index] : 0x0A
                guard byte == 0x20 || byte == 0x0A else { continue }
                let token = bytes[tokenStart..<index]
                if !token.isEmpty && matches(token) { return (line, String(decoding: token, as: UTF8.self)) }
                if byte == 0x0A { line += 1 }
                tokenStart = index + 1
            }
            return nil
        }
    }

    // MARK: - The sets

    /// Per set, its first and past-the-end word in ``rangeBoundaries``.
    private static let setBounds: [UInt32] = PackedTable.decode(UnicodePropertyTables.setBounds)
    /// The sets' range boundaries (start, end + 1, start, …).
    private static let rangeBoundaries: [UInt32] = PackedTable.decode(UnicodePropertyTables.rangeBoundaries)

    /// Set `index` of the tables, decoded (a few hundred ranges at most: O(ranges) once per
    /// escape when the pattern is compiled; matching is a binary search in the ranges).
    static func scalars(ofSet index: Int) -> RegexScalarSet {
        guard index >= 0, 2 * index + 1 < setBounds.count else { return .empty }
        var position = Int(setBounds[2 * index])
        let end = min(Int(setBounds[2 * index + 1]), rangeBoundaries.count)
        var ranges: [ClosedRange<UInt32>] = []
        while position + 1 < end {
            let low = rangeBoundaries[position]
            let boundary = min(rangeBoundaries[position + 1], RegexScalarSet.maxScalar + 1)
            // The data is generated: a malformed pair is skipped, never trapped on.
            if boundary > low { ranges.append(low...(boundary - 1)) }
            position += 2
        }
        return RegexScalarSet(ranges)
    }
}
