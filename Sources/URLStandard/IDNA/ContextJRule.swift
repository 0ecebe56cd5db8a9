/// The CONTEXTJ rules of RFC 5892 Appendix A.1 (ZERO WIDTH NON-JOINER) and A.2 (ZERO WIDTH
/// JOINER), which UTS #46 applies with CheckJoiners, from the generated `IDNATables`.
enum ContextJRule {
    /// Joining_Type values the rule uses; raw values are the generator's codes.
    enum JoiningType: UInt8 {
        case nonJoining = 0
        case leftJoining, dualJoining, rightJoining, transparent, joinCausing
    }

    static let joiningTypes = CodePointTable(PackedTable.decode(IDNATables.joiningTypes), propertyTable: true)

    static let zeroWidthNonJoiner: UInt32 = 0x200C
    static let zeroWidthJoiner: UInt32 = 0x200D
    /// Canonical_Combining_Class=Virama.
    static let viramaClass: UInt8 = 9

    @inline(__always)
    static func joiningType(_ scalar: UInt32) -> JoiningType {
        if scalar < 0x80 { return .nonJoining }
        return JoiningType(rawValue: joiningTypes.property(of: scalar)) ?? .nonJoining
    }

    /// Whether every ZWNJ and ZWJ in `label` is allowed by its context.
    static func isSatisfied(by label: ArraySlice<UInt32>) -> Bool {
        for position in label.indices where label[position] == zeroWidthNonJoiner || label[position] == zeroWidthJoiner {
            // Both: allowed right after a virama.
            if position > label.startIndex,
                UnicodeNormalization.combiningClass(label[position - 1]) == viramaClass
            {
                continue
            }
            guard label[position] == zeroWidthNonJoiner else { return false }
            // ZWNJ: (L|D) T* ZWNJ T* (R|D).
            guard hasJoiner(in: label[..<position].reversed(), accepting: .leftJoining),
                hasJoiner(in: label[(position + 1)...], accepting: .rightJoining)
            else { return false }
        }
        return true
    }

    /// Skips transparent characters in `scalars`; true if the first other one is dual-joining or
    /// joins on the given side.
    private static func hasJoiner<S: Sequence>(in scalars: S, accepting side: JoiningType) -> Bool
    where S.Element == UInt32 {
        for scalar in scalars {
            let type = joiningType(scalar)
            if type == .transparent { continue }
            return type == .dualJoining || type == side
        }
        return false
    }
}
