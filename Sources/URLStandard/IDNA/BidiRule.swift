/// The Bidi Rule of RFC 5893 §2, which UTS #46 applies (CheckBidi) to every label of a
/// Bidi domain name, from the generated `IDNATables`.
enum BidiRule {
    /// The Bidi_Class values the rule distinguishes; raw values are the generator's codes.
    enum BidiClass: UInt8 {
        /// Any class the rule never allows (B, S, WS, explicit embeddings and isolates, …).
        case other = 0
        case l, r, al, an, en, es, cs, et, on, bn, nsm
    }

    static let classes = CodePointTable(PackedTable.decode(IDNATables.bidiClasses), propertyTable: true)

    /// The Bidi_Class of one scalar.
    @inline(__always)
    static func bidiClass(_ scalar: UInt32) -> BidiClass {
        if scalar < 0x80 {
            // ASCII letters are L and digits EN; the rest of ASCII comes from the table.
            if (scalar | 0x20) >= 0x61 && (scalar | 0x20) <= 0x7A { return .l }
            if scalar >= 0x30 && scalar <= 0x39 { return .en }
        }
        return BidiClass(rawValue: classes.property(of: scalar)) ?? .other
    }

    /// Whether a label makes its domain a Bidi domain name (RFC 5893 §1.4: it contains an
    /// R, AL or AN character).
    static func isRightToLeft(_ label: ArraySlice<UInt32>) -> Bool {
        // No R, AL or AN character lies below the Hebrew block.
        for scalar in label where scalar >= 0x590 {
            let bidi = bidiClass(scalar)
            if bidi == .r || bidi == .al || bidi == .an { return true }
        }
        return false
    }

    /// Whether `label` satisfies all six conditions of RFC 5893 §2. Empty labels pass.
    static func isSatisfied(by label: ArraySlice<UInt32>) -> Bool {
        guard let first = label.first else { return true }
        let firstClass = bidiClass(first)
        // Trailing NSMs are skipped when rules 3 and 6 look at the label's end.
        var lastClass: BidiClass = .nsm
        switch firstClass {
        case .r, .al:
            // Rules 2-4: an RTL label.
            var hasEN = false
            var hasAN = false
            for scalar in label {
                let bidi = bidiClass(scalar)
                switch bidi {
                case .r, .al, .es, .cs, .et, .on, .bn: break
                case .en: hasEN = true
                case .an: hasAN = true
                case .nsm: continue
                case .l, .other: return false
                }
                lastClass = bidi
            }
            if hasEN && hasAN { return false }
            return lastClass == .r || lastClass == .al || lastClass == .en || lastClass == .an
        case .l:
            // Rules 5-6: an LTR label.
            for scalar in label {
                let bidi = bidiClass(scalar)
                switch bidi {
                case .l, .en, .es, .cs, .et, .on, .bn: break
                case .nsm: continue
                case .r, .al, .an, .other: return false
                }
                lastClass = bidi
            }
            return lastClass == .l || lastClass == .en
        default:
            // Rule 1: the first character must be L, R or AL.
            return false
        }
    }
}
