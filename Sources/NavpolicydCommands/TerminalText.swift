/// Text from untrusted input made safe to print on a terminal.
///
/// A bundle is downloaded or handed over; its members and the errors that quote them reached the
/// terminal as they were, so an ESC sequence in a bundle could retitle the window, move the
/// cursor or hide a line (issue 38, item 13). Control characters (C0, DEL, C1) and the Unicode
/// bidirectional overrides (which reorder what a reader sees) are written as `\u{…}` escapes.
enum TerminalText {
    /// `text` with every control and bidi-override character escaped as `\u{XX}`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // LRE…RLO, LRI…PDI, and the marks that steer them: the "Trojan Source" set.
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
