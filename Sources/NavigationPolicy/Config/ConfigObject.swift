public import JSONSupport

/// A JSON object in a config, with typed accessors that report problems at their pointer.
///
/// Accessors return nil after reporting when a value is missing or of the wrong type,
/// so decoding continues and every issue in the document is found in one pass.
public struct ConfigObject: Sendable {
    public let object: JSONObject
    public let pointer: JSONPointer

    public init(_ object: JSONObject, at pointer: JSONPointer) {
        self.object = object
        self.pointer = pointer
    }

    /// Wraps `value` when it is an object; otherwise reports and returns nil.
    public static func expect(
        _ value: JSONValue, at pointer: JSONPointer, diagnostics: inout ConfigDiagnostics
    ) -> ConfigObject? {
        guard case .object(let object) = value else {
            diagnostics.report(pointer, "expected an object, got \(value.kindName)")
            return nil
        }
        return ConfigObject(object, at: pointer)
    }

    /// Reports members whose key is not in `allowed` (with a spelling suggestion) and duplicate keys.
    public func checkKeys(allowed: [String], diagnostics: inout ConfigDiagnostics) {
        var seen = RepeatedKeys()
        for (index, member) in object.members.enumerated() {
            if seen.repeats(member.key, at: index, in: object.members) {
                diagnostics.report(pointer.appending(member.key), "duplicate key \"\(EchoedText.bounded(member.key))\"")
            }
            guard !allowed.contains(where: member.key.hasSameUTF8) else { continue }
            diagnostics.report(pointer.appending(member.key)) { Self.unknownField(member.key, allowed: allowed) }
        }
    }

    /// The message for a member `key` that is not one of `allowed`, with a spelling suggestion.
    private static func unknownField(_ key: String, allowed: [String]) -> String {
        let message = "unknown field \"\(EchoedText.bounded(key))\""
        if let suggestion = Spelling.closest(to: key, in: allowed) { return message + "; did you mean \"\(suggestion)\"?" }
        return message + "; expected one of " + allowed.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// ``checkKeys(allowed:diagnostics:)`` for keys allowed by either list (a handler's common
    /// keys and its type's parameters): the lists are joined only when there is something to
    /// report, as every handler of a config is checked and a joined array cost an allocation each.
    public func checkKeys(allowed: [String], alsoAllowed: [String], diagnostics: inout ConfigDiagnostics) {
        var seen = RepeatedKeys()
        let allKnownAndDistinct = object.members.indices.allSatisfy { index in
            let key = object.members[index].key
            return (allowed.contains(where: key.hasSameUTF8) || alsoAllowed.contains(where: key.hasSameUTF8))
                && !seen.repeats(key, at: index, in: object.members)
        }
        guard !allKnownAndDistinct else { return }
        checkKeys(allowed: allowed + alsoAllowed, diagnostics: &diagnostics)
    }

    public func has(_ key: String) -> Bool { object[key] != nil }

    public func string(_ key: String, required: Bool = false, diagnostics: inout ConfigDiagnostics) -> String? {
        guard let value = object[key] else {
            if required { diagnostics.report(pointer.appending(key), "required field is missing") }
            return nil
        }
        guard case .string(let text) = value else {
            diagnostics.report(pointer.appending(key), "expected a string, got \(value.kindName)")
            return nil
        }
        return text
    }

    /// A file path: a non-empty string without NUL. A path is handed to the C library, which
    /// ends it at the first NUL, so `"/etc/token\u0000.bak"` would open `/etc/token` while
    /// `validate` showed the whole string (issue 38, item 14); such a value is refused at its pointer.
    public func path(_ key: String, diagnostics: inout ConfigDiagnostics) -> String? {
        guard let text = string(key, diagnostics: &diagnostics) else { return nil }
        guard !text.isEmpty else {
            diagnostics.report(pointer.appending(key), "empty path")
            return nil
        }
        guard !text.utf8.contains(0) else {
            diagnostics.report(pointer.appending(key), "a path cannot contain NUL (\\u0000): the system would read it cut short")
            return nil
        }
        return text
    }

    public func bool(_ key: String, diagnostics: inout ConfigDiagnostics) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else {
            diagnostics.report(pointer.appending(key), "expected true or false, got \(value.kindName)")
            return nil
        }
        return flag
    }

    /// An integer within `range`.
    public func integer(_ key: String, in range: ClosedRange<Int>, diagnostics: inout ConfigDiagnostics) -> Int? {
        wholeNumber(key, in: Int64(range.lowerBound)...Int64(range.upperBound), diagnostics: &diagnostics).map {
            Int($0)  // within `range`, so within `Int`
        }
    }

    #if !_pointerBitWidth(_64)
        /// An integer within `range`, a range past 32 bits (``ConfigInteger``), where `Int` has 32.
        public func integer(
            _ key: String, in range: ClosedRange<ConfigInteger>, diagnostics: inout ConfigDiagnostics
        ) -> ConfigInteger? {
            wholeNumber(key, in: range, diagnostics: &diagnostics)
        }
    #endif

    /// Reads with 64 bits whatever `Int` has, so a number past 2^31 is "out of range" in the
    /// WebAssembly build exactly as it is natively, not "not a whole number".
    private func wholeNumber(_ key: String, in range: ClosedRange<Int64>, diagnostics: inout ConfigDiagnostics) -> Int64? {
        guard let value = object[key] else { return nil }
        guard let number = value.wholeNumberValue else {
            diagnostics.report(pointer.appending(key), "expected a whole number, got \(value.kindName)")
            return nil
        }
        guard range.contains(number) else {
            diagnostics.report(
                pointer.appending(key), "\(number) is out of range \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return number
    }

    /// A non-empty list of strings, read as (position, text) pairs; nil after reporting when
    /// the value is not such a list (every non-string entry is reported).
    ///
    /// No pointer is built per entry: a compile reads every list of every handler, and a
    /// `JSONPointer` per entry cost more than the rest of reading it. Callers form one with
    /// ``pointer(to:_:)`` when they report an entry.
    public func stringList(_ key: String, diagnostics: inout ConfigDiagnostics) -> ConfigStringList? {
        guard let value = object[key] else { return nil }
        guard case .array(let elements) = value else {
            var message = "expected an array of strings, got \(value.kindName)"
            // The commonest slip: one value written without the brackets.
            if case .string(let text) = value { message += "; write [\"\(text)\"]" }
            diagnostics.report(pointer.appending(key), message)
            return nil
        }
        guard !elements.isEmpty else {
            diagnostics.report(pointer.appending(key), "empty list; omit the field to match any value")
            return nil
        }
        var valid = true
        for (index, element) in elements.enumerated() {
            guard case .string = element else {
                diagnostics.report(pointer(to: key, index), "expected a string, got \(element.kindName)")
                valid = false
                continue
            }
        }
        return valid ? ConfigStringList(elements) : nil
    }

    /// The pointer of entry `index` of the list under `key` (`/handlers/3/match/hosts/0`).
    public func pointer(to key: String, _ index: Int) -> JSONPointer {
        pointer.appending(key).appending(index)
    }

    /// A nested object, reported if present with another type.
    public func object(_ key: String, diagnostics: inout ConfigDiagnostics) -> ConfigObject? {
        guard let value = object[key] else { return nil }
        return ConfigObject.expect(value, at: pointer.appending(key), diagnostics: &diagnostics)
    }
}

/// The entries of a list that ``ConfigObject/stringList(_:diagnostics:)`` checked to hold only
/// strings, as (position, text) pairs; it wraps the parsed array without copying it.
public struct ConfigStringList: Sequence, Sendable {
    private let elements: [JSONValue]

    fileprivate init(_ elements: [JSONValue]) {
        self.elements = elements
    }

    public func makeIterator() -> Iterator {
        Iterator(elements: elements)
    }

    /// The number of entries (exact: every element is a string), so callers can size a set once.
    public var underestimatedCount: Int { elements.count }

    /// Yields each string entry with its position in the list.
    public struct Iterator: IteratorProtocol {
        fileprivate let elements: [JSONValue]
        fileprivate var index = 0

        public mutating func next() -> (index: Int, text: String)? {
            while index < elements.count {
                let position = index
                index += 1
                // Every element is a string (checked when the list was read); `if case` keeps
                // that an invariant of the reader rather than a trap.
                if case .string(let text) = elements[position] { return (position, text) }
            }
            return nil
        }
    }
}

/// Suggestions for misspelled field names (config keys, intake JSON members).
public enum Spelling {
    /// Words longer than this get no suggestion: no known name is that long, and the edit
    /// distance costs the product of the lengths (an 8 MiB key took 13 s of CPU, issue 38).
    public static let maximumWordBytes = 64

    /// The candidate within edit distance 2 (case-insensitive), if exactly one is closest.
    /// Bounded: a word over ``maximumWordBytes`` bytes is not compared, nor a candidate whose
    /// length differs by more than 2 (it cannot be within 2 edits).
    public static func closest(to word: String, in candidates: [String]) -> String? {
        guard word.utf8.count <= maximumWordBytes else { return nil }
        let target = Array(word.lowercased().utf8)
        var best: (String, Int)?
        for candidate in candidates {
            let other = Array(candidate.lowercased().utf8)
            guard abs(other.count - target.count) <= 2 else { continue }
            let distance = editDistance(target, other)
            if distance <= 2, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best?.0
    }

    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for (i, aByte) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, bByte) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (aByte == bByte ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
