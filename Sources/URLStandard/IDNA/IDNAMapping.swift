/// The UTS #46 IDNA Mapping Table (§5), from the generated `IDNATables`.
enum IDNAMapping {
    /// A code point's status; raw values are the generator's codes.
    enum Status: UInt8 {
        case valid = 0
        case mapped = 1
        /// Kept as is by nontransitional processing, which is what the URL Standard uses.
        case deviation = 2
        case ignored = 3
        case disallowed = 4
    }

    static let starts = CodePointTable(PackedTable.decode(IDNATables.mappingStarts), propertyTable: false)
    static let values = PackedTable.decode(IDNATables.mappingValues)
    static let scalars = PackedTable.decode(IDNATables.mappingScalars)

    /// The table word of `scalar`'s range: scalar offset << 8 | length << 3 | status.
    @inline(__always)
    private static func entry(_ scalar: UInt32) -> UInt32 {
        guard let index = starts.lastIndex(atOrBelow: scalar), index < values.count else {
            return UInt32(Status.disallowed.rawValue)
        }
        return values[index]
    }

    /// The status of one code point (ASCII included).
    static func status(_ scalar: UInt32) -> Status {
        if scalar < 0x80 { return scalar >= 0x41 && scalar <= 0x5A ? .mapped : .valid }
        return Status(rawValue: UInt8(entry(scalar) & 7)) ?? .disallowed
    }

    /// Step 1 of UTS #46 processing (nontransitional): appends the mapping of `scalar` to `out`.
    /// Disallowed code points are kept; the validity criteria reject them later (UTS #46 15.1+),
    /// which matters when NFC would otherwise combine them.
    @inline(__always)
    static func map(_ scalar: UInt32, into out: inout [UInt32]) {
        if scalar < 0x80 {
            out.append(scalar >= 0x41 && scalar <= 0x5A ? scalar | 0x20 : scalar)
            return
        }
        let word = entry(scalar)
        switch Status(rawValue: UInt8(word & 7)) {
        case .mapped:
            let offset = Int(word >> 8)
            let length = Int((word >> 3) & 0x1F)
            guard offset + length <= scalars.count else {
                out.append(scalar)
                return
            }
            out.append(contentsOf: scalars[offset..<(offset + length)])
        case .ignored:
            return
        case .valid, .deviation, .disallowed, .none:
            out.append(scalar)
        }
    }
}
