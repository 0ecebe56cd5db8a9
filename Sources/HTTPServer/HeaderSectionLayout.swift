/// Checks that the header fields libmicrohttpd reports account for every byte of the head.
///
/// MHD 0.9.75 parses the head in place in its read buffer: it overwrites each line end
/// (CRLF or a bare LF) with NULs and the colon with a NUL, and hands out pointers to the
/// name and to the value after the optional whitespace. So in an intact head, walking from
/// the end of the HTTP version, every byte is either part of a reported name or value, a
/// NUL that was a colon or a line end, or whitespace after a colon. What MHD hides breaks
/// that walk: after a NUL inside a value the rest of the line is unaccounted for, an
/// obs-fold continuation is appended to the name in a copy outside the head (and its own
/// line is left unaccounted for), and a line with an empty name is not reported at all.
///
/// Only bytes between two pointers that both lie inside the head
/// (`[start, start + size)`, `MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`) are ever read.
package struct HeaderSectionLayout {
    private let start: UnsafeRawPointer
    private let end: UnsafeRawPointer
    /// Where the next field line must begin: just after the previous line's NULs.
    private var cursor: UnsafeRawPointer?

    /// Starts the walk for a head beginning at `start` (the method) of `size` bytes, whose
    /// request line ends with `version` (nil or outside the head: the first field is not
    /// checked against the request line).
    package init(start: UnsafeRawPointer, size: Int, version: UnsafeRawPointer?, versionLength: Int) {
        self.start = start
        self.end = start + max(0, size)
        if let version, version >= start, version + versionLength <= end {
            cursor = version + versionLength
        }
    }

    /// Accepts the next reported field; false when bytes before it or inside it are hidden.
    package mutating func accept(name: UnsafeRawPointer, nameLength: Int, value: UnsafeRawPointer, valueLength: Int) -> Bool {
        let nameEnd = name + nameLength
        let valueEnd = value + valueLength
        guard name >= start, nameEnd < value, valueEnd <= end else { return false }
        if let cursor, !Self.isLineEnd(from: cursor, to: name) { return false }
        // Between name and value: the NUL that was the colon, then only SP or HTAB.
        guard nameEnd.load(as: UInt8.self) == 0 else { return false }
        var position = nameEnd + 1
        while position < value {
            let byte = position.load(as: UInt8.self)
            guard byte == 0x20 || byte == 0x09 else { return false }
            position += 1
        }
        cursor = valueEnd
        return true
    }

    /// After the last field: only the last line end and the empty line may remain.
    package func finish() -> Bool {
        guard let cursor else { return true }
        let remaining = end - cursor
        guard remaining >= 2 && remaining <= 4 else { return false }
        return Self.allZero(from: cursor, to: end)
    }

    /// One line end between two field lines: CRLF or a bare LF, both turned into NULs.
    private static func isLineEnd(from lower: UnsafeRawPointer, to upper: UnsafeRawPointer) -> Bool {
        let distance = upper - lower
        return (distance == 1 || distance == 2) && allZero(from: lower, to: upper)
    }

    private static func allZero(from lower: UnsafeRawPointer, to upper: UnsafeRawPointer) -> Bool {
        var position = lower
        while position < upper {
            guard position.load(as: UInt8.self) == 0 else { return false }
            position += 1
        }
        return true
    }
}
