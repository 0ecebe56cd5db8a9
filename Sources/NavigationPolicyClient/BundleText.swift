/// Text from a bundle that is not verified yet (or from its origin), as a message shows it.
///
/// A refused bundle's text reaches the app's `RefreshOutcome`, the daemon's log, `/v1/status`
/// and a 422, and the bundle may be 32 MiB: a duplicate member with a 16 MB name gave 16 MB
/// reasons with raw ESC and BEL bytes in them (attack round 9, F2). So a message grows with the
/// number of things wrong, never with the size of one of them, and holds no control byte.
enum BundleText {
    /// The longest text ``shown(_:)`` repeats whole: a key id that could be trusted is as long.
    static let maximumWholeBytes = 64
    /// How much of a longer text ``shown(_:)`` repeats.
    static let shownPrefixBytes = 16
    /// The longest ``BundleRejection/reason``: a reason is a sentence, never a document.
    static let maximumReasonBytes = 1024

    /// `text` quoted whole when it is at most ``maximumWholeBytes`` of printable ASCII without a
    /// quote (as a configured key id is), else its length and first ``shownPrefixBytes`` bytes,
    /// any byte outside printable ASCII shown as `?`.
    static func shown(_ text: some StringProtocol) -> String {
        let isQuotable = { (byte: UInt8) in byte >= 0x21 && byte < 0x7F && byte != UInt8(ascii: "\"") }
        if text.utf8.count <= maximumWholeBytes && text.utf8.allSatisfy(isQuotable) { return "\"" + text + "\"" }
        let start = replacing(text.utf8.prefix(shownPrefixBytes), unless: isQuotable)
        return "of \(text.utf8.count) bytes starting \"\(start)\""
    }

    /// `reason` cut to its first ``maximumReasonBytes`` bytes (the cut marked with its whole
    /// length), every control character escaped as `\u{1B}`: the bound of whatever a refused
    /// bundle's text made of the sentences about it.
    static func boundedReason(_ reason: String) -> String {
        let total = reason.utf8.count
        if total <= maximumReasonBytes && !reason.unicodeScalars.contains(where: isControl) { return reason }
        var bounded = ""
        var used = 0
        for scalar in reason.unicodeScalars {
            let piece = isControl(scalar) ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
            used += piece.utf8.count
            guard used <= maximumReasonBytes else { return bounded + "… (\(total) bytes in all)" }
            bounded += piece
        }
        return bounded
    }

    /// C0 and C1 controls and DEL: what a terminal or a log viewer acts on.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `bytes` as text, each byte `keeps` refuses as `?` (a UTF-8 sequence cut short becomes U+FFFD).
    private static func replacing(_ bytes: some Sequence<UInt8>, unless keeps: (UInt8) -> Bool) -> String {
        String(decoding: bytes.map { keeps($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
