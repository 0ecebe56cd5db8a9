import JSONSupport

/// A `match` list read straight from the config bytes into one flat column: every string's
/// bytes back to back, with where each ends. A million hosts cost their bytes plus 4 bytes
/// each, not a million `String`s and tree nodes (the JSON load of issue 33).
///
/// Elements that are not strings are kept as their kind, in place, so the list is reported
/// exactly as ``ConfigObject/stringList(_:diagnostics:)`` reports a parsed one.
struct ConfigStringColumn: Sendable {
    private var bytes: [UInt8] = []
    /// Where each element's bytes end in `bytes` (it starts where the previous one ends).
    private var ends: [UInt32] = []
    /// Elements that are not strings: position in the list and kind name ("a number").
    private(set) var nonStrings: [(index: Int, kind: String)] = []

    /// Elements read (strings and others).
    var count: Int { ends.count }

    mutating func append(_ text: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: text)
        ends.append(UInt32(truncatingIfNeeded: bytes.count))
    }

    mutating func append(_ value: JSONValue) {
        if case .string(var text) = value {
            text.withUTF8 { append($0) }
        } else {
            nonStrings.append((ends.count, value.kindName))
            ends.append(UInt32(truncatingIfNeeded: bytes.count))
        }
    }

    /// Each element's bytes in place, with its position (only meaningful when every element
    /// is a string, which ``MatchStringList`` checks before handing the column out).
    func forEachBytes(_ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        bytes.withUnsafeBufferPointer { all in
            ends.withUnsafeBufferPointer { ends in
                var start = 0
                for index in 0..<ends.count {
                    let end = Int(ends[index])
                    body(index, UnsafeBufferPointer(rebasing: all[start..<end]))
                    start = end
                }
            }
        }
    }

    /// Reads the array that is the reader's next value into a column. The reader must be at `[`.
    static func read(_ reader: inout JSONStreamReader) throws(JSONParseError) -> ConfigStringColumn {
        var column = ConfigStringColumn()
        try reader.beginArray()
        while try reader.nextElement() {
            if reader.readPlainString({ column.append($0) }) == nil {
                column.append(try reader.readValue())
            }
        }
        return column
    }
}

/// The `hosts` and `pathPrefixes` lists of one handler's `match`, streamed into columns; the
/// `match` object keeps an empty array in their place so its keys are checked as usual.
struct StreamedMatchLists: Sendable {
    var hosts: ConfigStringColumn?
    var pathPrefixes: ConfigStringColumn?

    /// The keys whose arrays are streamed rather than parsed into a tree: those whose large
    /// lists become image tables (``MatchForm/tableKeys``, from the forms' descriptions).
    static let keys = MatchForm.tableKeys

    subscript(key: String) -> ConfigStringColumn? {
        get { key.hasSameUTF8(as: "hosts") ? hosts : key.hasSameUTF8(as: "pathPrefixes") ? pathPrefixes : nil }
        set {
            if key.hasSameUTF8(as: "hosts") {
                hosts = newValue
            } else if key.hasSameUTF8(as: "pathPrefixes") {
                pathPrefixes = newValue
            }
        }
    }
}

/// A `match` list of strings as decoding reads it: from the parsed tree, or from a column.
struct MatchStringList {
    private enum Storage {
        case tree(ConfigStringList)
        case column(ConfigStringColumn)
    }

    private let storage: Storage

    /// The list under `key`, reported as ``ConfigObject/stringList(_:diagnostics:)`` reports
    /// it (not an array, empty, entries that are not strings), or nil after reporting.
    static func read(
        _ key: String, of config: ConfigObject, streamed: StreamedMatchLists?, diagnostics: inout ConfigDiagnostics
    ) -> MatchStringList? {
        guard let column = streamed?[key] else {
            return config.stringList(key, diagnostics: &diagnostics).map { MatchStringList(storage: .tree($0)) }
        }
        guard column.count > 0 else {
            diagnostics.report(config.pointer.appending(key), "empty list; omit the field to match any value")
            return nil
        }
        for (index, kind) in column.nonStrings {
            diagnostics.report(config.pointer(to: key, index), "expected a string, got \(kind)")
        }
        return column.nonStrings.isEmpty ? MatchStringList(storage: .column(column)) : nil
    }

    /// The number of entries.
    var count: Int {
        switch storage {
        case .tree(let list): list.underestimatedCount
        case .column(let column): column.count
        }
    }

    /// Each entry's UTF-8 bytes in place, with its position.
    func forEachBytes(_ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        switch storage {
        case .tree(let list):
            for (index, text) in list {
                var text = text
                text.withUTF8 { body(index, $0) }
            }
        case .column(let column): column.forEachBytes(body)
        }
    }

    /// Each entry as a `String`, with its position (small lists, and entries off the fast paths).
    func forEach(_ body: (Int, String) -> Void) {
        switch storage {
        case .tree(let list):
            for (index, text) in list { body(index, text) }
        case .column(let column):
            column.forEachBytes { index, bytes in body(index, String(decoding: bytes, as: UTF8.self)) }
        }
    }
}
