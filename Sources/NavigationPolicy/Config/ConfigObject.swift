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
        // Config objects have a handful of keys: a pairwise scan beats allocating a set per object.
        for (index, member) in object.members.enumerated() {
            if object.members[..<index].contains(where: { $0.key == member.key }) {
                diagnostics.report(pointer.appending(member.key), "duplicate key \"\(member.key)\"")
            }
            guard !allowed.contains(member.key) else { continue }
            var message = "unknown field \"\(member.key)\""
            if let suggestion = Spelling.closest(to: member.key, in: allowed) {
                message += "; did you mean \"\(suggestion)\"?"
            } else {
                message += "; expected one of " + allowed.map { "\"\($0)\"" }.joined(separator: ", ")
            }
            diagnostics.report(pointer.appending(member.key), message)
        }
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
        guard let value = object[key] else { return nil }
        guard let number = value.integerValue else {
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

    /// A non-empty list of strings, each with its pointer for per-entry errors.
    public func stringList(_ key: String, diagnostics: inout ConfigDiagnostics) -> [(String, JSONPointer)]? {
        guard let value = object[key] else { return nil }
        let listPointer = pointer.appending(key)
        guard case .array(let elements) = value else {
            var message = "expected an array of strings, got \(value.kindName)"
            // The commonest slip: one value written without the brackets.
            if case .string(let text) = value { message += "; write [\"\(text)\"]" }
            diagnostics.report(listPointer, message)
            return nil
        }
        guard !elements.isEmpty else {
            diagnostics.report(listPointer, "empty list; omit the field to match any value")
            return nil
        }
        var entries: [(String, JSONPointer)] = []
        entries.reserveCapacity(elements.count)
        var valid = true
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                diagnostics.report(listPointer.appending(index), "expected a string, got \(element.kindName)")
                valid = false
                continue
            }
            entries.append((text, listPointer.appending(index)))
        }
        return valid ? entries : nil
    }

    /// A nested object, reported if present with another type.
    public func object(_ key: String, diagnostics: inout ConfigDiagnostics) -> ConfigObject? {
        guard let value = object[key] else { return nil }
        return ConfigObject.expect(value, at: pointer.appending(key), diagnostics: &diagnostics)
    }
}

/// Suggestions for misspelled field names (config keys, intake JSON members).
public enum Spelling {
    /// The candidate within edit distance 2 (case-insensitive), if exactly one is closest.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let target = Array(word.lowercased().utf8)
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.lowercased().utf8))
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
