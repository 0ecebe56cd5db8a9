/// UTS #46 ToASCII (Unicode 17.0) for the URL Standard's "domain to ASCII", in pure Swift.
///
/// Options are the URL Standard's: CheckHyphens=false, CheckBidi=true, CheckJoiners=true,
/// UseSTD3ASCIIRules=false, Transitional_Processing=false, VerifyDnsLength=false,
/// IgnoreInvalidPunycode=false. The Unicode data is generated into `IDNATables` by
/// `scripts/generate-idna-tables.py`, so hosts are decided with the tables current browsers
/// use rather than whatever the system's ICU has (ICU 72 mapped U+1E9E to "ss", for example).
public enum IDNA {
    private static let fullStop: UInt32 = 0x2E
    private static let acePrefix: [UInt32] = [0x78, 0x6E, 0x2D, 0x2D]  // "xn--"

    /// Runs UTS #46 ToASCII on UTF-8 input and returns the ASCII domain.
    /// Ill-formed UTF-8 fails, as its U+FFFD replacement would (UTS #46 disallows U+FFFD).
    /// - Throws: `URLParseError(.invalidDomain)` on any UTS #46 error.
    public static func toASCII(_ input: [UInt8]) throws(URLParseError) -> [UInt8] {
        guard let scalars = decodeUTF8(input) else { throw URLParseError(.invalidDomain) }
        return try toASCII(scalars: scalars)
    }

    /// Convenience: ToASCII on a String (returns the ASCII domain).
    public static func toASCII(_ domain: String) throws(URLParseError) -> String {
        let scalars = domain.unicodeScalars.map { $0.value }
        return String(decoding: try toASCII(scalars: scalars), as: UTF8.self)
    }

    /// UTS #46 §4 Processing followed by §4.2 ToASCII, on scalar values.
    static func toASCII(scalars input: [UInt32]) throws(URLParseError) -> [UInt8] {
        // 1. Map (nontransitional). 2. Normalize.
        var mapped: [UInt32] = []
        mapped.reserveCapacity(input.count)
        for scalar in input { IDNAMapping.map(scalar, into: &mapped) }
        let normalized = UnicodeNormalization.nfc(mapped)

        // 3. Break into labels. 4. Convert/Validate, decoding "xn--" labels. Labels are slices
        // of `normalized` (no copies) except the decoded ones.
        var labels: [ArraySlice<UInt32>] = []
        var isBidiDomain = false
        for label in normalized.split(separator: fullStop, omittingEmptySubsequences: false) {
            if label.starts(with: acePrefix) {
                labels.append(try decodeACELabel(label.dropFirst(acePrefix.count))[...])
            } else {
                guard isValid(label, checkNFC: false) else { throw URLParseError(.invalidDomain) }
                labels.append(label)
            }
            if !isBidiDomain, let last = labels.last, BidiRule.isRightToLeft(last) { isBidiDomain = true }
        }
        // CheckBidi: only a Bidi domain name's labels must satisfy the Bidi Rule.
        if isBidiDomain {
            for label in labels where !BidiRule.isSatisfied(by: label) { throw URLParseError(.invalidDomain) }
        }

        // ToASCII: Punycode-encode the labels that are not ASCII.
        var out: [UInt8] = []
        out.reserveCapacity(normalized.count + 8)
        for (index, label) in labels.enumerated() {
            if index > 0 { out.append(0x2E) }
            if label.allSatisfy({ $0 < 0x80 }) {
                for scalar in label { out.append(UInt8(truncatingIfNeeded: scalar)) }
            } else {
                out.append(contentsOf: [0x78, 0x6E, 0x2D, 0x2D])
                guard Punycode.encode(label, into: &out) else { throw URLParseError(.invalidDomain) }
            }
        }
        return out
    }

    /// Step 4.1 for a label that starts with "xn--": the rest must be ASCII Punycode that
    /// decodes to a non-empty label with a non-ASCII code point, which must then be valid.
    private static func decodeACELabel(_ encoded: ArraySlice<UInt32>) throws(URLParseError) -> [UInt32] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        for scalar in encoded {
            guard scalar < 0x80 else { throw URLParseError(.invalidDomain) }
            bytes.append(UInt8(truncatingIfNeeded: scalar))
        }
        guard let decoded = Punycode.decode(bytes[...]), decoded.contains(where: { $0 >= 0x80 }),
            isValid(decoded[...], checkNFC: true)
        else { throw URLParseError(.invalidDomain) }
        return decoded
    }

    /// The validity criteria of UTS #46 §4.1 (nontransitional, CheckHyphens=false, no STD3
    /// rules, CheckJoiners=true); CheckBidi needs the whole domain and is done by the caller.
    /// Criteria 1 (NFC) and 5 (no FULL STOP) can only fail for a Punycode-decoded label.
    static func isValid(_ label: ArraySlice<UInt32>, checkNFC: Bool) -> Bool {
        guard let first = label.first else { return true }
        if checkNFC {
            if label.contains(fullStop) || !UnicodeNormalization.isNFC(Array(label)) { return false }
        }
        // 4. Without CheckHyphens a label must still not begin with "xn--".
        if label.starts(with: acePrefix) { return false }
        // 6. It must not begin with a combining mark.
        if first >= 0x300, marks.property(of: first) != 0 { return false }
        // 7. Every code point must be valid or a deviation.
        var hasJoiner = false
        for scalar in label where scalar >= 0x80 {
            switch IDNAMapping.status(scalar) {
            case .valid, .deviation: break
            case .mapped, .ignored, .disallowed: return false
            }
            if scalar == ContextJRule.zeroWidthJoiner || scalar == ContextJRule.zeroWidthNonJoiner {
                hasJoiner = true
            }
        }
        if label.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return false }
        // 8. CheckJoiners.
        return !hasJoiner || ContextJRule.isSatisfied(by: label)
    }

    /// General_Category=Mark, for criterion 6.
    static let marks = CodePointTable(PackedTable.decode(IDNATables.marks), propertyTable: true)

    /// Decodes well-formed UTF-8 to scalar values; nil if ill-formed.
    private static func decodeUTF8(_ bytes: [UInt8]) -> [UInt32]? {
        var scalars: [UInt32] = []
        scalars.reserveCapacity(bytes.count)
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar.value)
            case .emptyInput: return scalars
            case .error: return nil
            }
        }
    }
}
