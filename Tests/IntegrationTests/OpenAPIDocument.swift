import Foundation
import JSONSupport

/// A value read from the YAML subset `docs/openapi.yaml` is written in.
///
/// Scalars stay strings (`true`, `3`, `"3"` and `null` all read as text); the contract test
/// interprets them where it needs to.
indirect enum YAMLNode: Sendable, Equatable {
    case scalar(String)
    case mapping([YAMLEntry])
    case sequence([YAMLNode])

    subscript(key: String) -> YAMLNode? {
        guard case .mapping(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    var string: String? {
        if case .scalar(let text) = self { return text }
        return nil
    }

    var entries: [YAMLEntry] {
        if case .mapping(let entries) = self { return entries }
        return []
    }

    var items: [YAMLNode] {
        if case .sequence(let items) = self { return items }
        return []
    }

    /// A scalar, or a sequence of scalars, as a list of strings (`type: string` or `type: [string, "null"]`).
    var strings: [String] {
        switch self {
        case .scalar(let text): [text]
        case .sequence(let items): items.compactMap(\.string)
        case .mapping: []
        }
    }
}

struct YAMLEntry: Sendable, Equatable {
    var key: String
    var value: YAMLNode
}

struct YAMLSubsetError: Error, CustomStringConvertible {
    var line: Int
    var reason: String
    var description: String { "line \(line): \(reason)" }
}

/// A reader for a deliberately small YAML subset, enough for a hand-written OpenAPI document.
///
/// Supported: block mappings and sequences (a sequence item may open a mapping: `- name: x`),
/// plain, single- and double-quoted scalars, `|` and `>` block scalars, flow lists of
/// scalars (`[a, "b"]`), the empty mapping `{}`, full-line comments. Everything else (tabs, anchors, aliases, tags,
/// flow mappings, duplicate keys, a plain scalar with `: ` in it) is rejected rather than
/// misread, so the document cannot drift into YAML this reader would get wrong.
struct YAMLSubsetReader {
    private struct Line {
        var number: Int
        var indent: Int
        var text: String
    }

    private var lines: [Line]
    private var raw: [String]
    private var index = 0

    static func parse(_ text: String) throws(YAMLSubsetError) -> YAMLNode {
        var reader = YAMLSubsetReader(text)
        try reader.checkCharacters()
        let node = try reader.parseBlock(parentIndent: -1)
        reader.skipIgnorable()
        if reader.index < reader.lines.count {
            throw YAMLSubsetError(line: reader.lines[reader.index].number, reason: "unexpected content after the document")
        }
        return node
    }

    private init(_ text: String) {
        raw = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        lines = raw.enumerated().map { offset, line in
            let indent = line.prefix { $0 == " " }.count
            var text = String(line.dropFirst(indent))
            while text.last == " " { text.removeLast() }
            return Line(number: offset + 1, indent: indent, text: text)
        }
    }

    private func checkCharacters() throws(YAMLSubsetError) {
        for line in lines where line.text.hasPrefix("\t") || raw[line.number - 1].contains("\t") {
            throw YAMLSubsetError(line: line.number, reason: "tab character (indent with spaces only)")
        }
    }

    private func isIgnorable(_ line: Line) -> Bool { line.text.isEmpty || line.text.hasPrefix("#") }

    private mutating func skipIgnorable() {
        while index < lines.count, isIgnorable(lines[index]) { index += 1 }
    }

    /// Parses the block that starts at the next content line, which must be indented deeper than the parent.
    private mutating func parseBlock(parentIndent: Int) throws(YAMLSubsetError) -> YAMLNode {
        skipIgnorable()
        guard index < lines.count else { throw YAMLSubsetError(line: lines.count, reason: "missing value at end of file") }
        let line = lines[index]
        guard line.indent > parentIndent else {
            throw YAMLSubsetError(line: line.number, reason: "expected an indented block")
        }
        if line.indent != parentIndent + 2 && parentIndent >= 0 {
            throw YAMLSubsetError(line: line.number, reason: "indent by exactly 2 spaces")
        }
        return Self.isSequenceItem(line.text)
            ? try parseSequence(indent: line.indent) : try parseMapping(indent: line.indent)
    }

    private static func isSequenceItem(_ text: String) -> Bool { text == "-" || text.hasPrefix("- ") }

    private mutating func parseMapping(indent: Int) throws(YAMLSubsetError) -> YAMLNode {
        var entries: [YAMLEntry] = []
        while true {
            skipIgnorable()
            guard index < lines.count, lines[index].indent >= indent else { break }
            let line = lines[index]
            guard line.indent == indent else {
                throw YAMLSubsetError(line: line.number, reason: "unexpected indentation")
            }
            guard !Self.isSequenceItem(line.text) else {
                throw YAMLSubsetError(line: line.number, reason: "sequence item where a mapping key was expected")
            }
            guard let (key, rest) = try Self.splitKey(line.text, line: line.number) else {
                throw YAMLSubsetError(line: line.number, reason: "expected `key: value`")
            }
            if entries.contains(where: { $0.key == key }) {
                throw YAMLSubsetError(line: line.number, reason: "duplicate key \"\(key)\"")
            }
            index += 1
            let value: YAMLNode
            if rest.isEmpty {
                value = try parseBlock(parentIndent: indent)
            } else if ["|", "|-", ">", ">-"].contains(rest) {
                value = .scalar(blockScalar(style: rest, parentIndent: indent))
            } else {
                value = try Self.inlineValue(rest, line: line.number)
            }
            entries.append(YAMLEntry(key: key, value: value))
        }
        return .mapping(entries)
    }

    private mutating func parseSequence(indent: Int) throws(YAMLSubsetError) -> YAMLNode {
        var items: [YAMLNode] = []
        while true {
            skipIgnorable()
            guard index < lines.count, lines[index].indent >= indent else { break }
            let line = lines[index]
            guard line.indent == indent, Self.isSequenceItem(line.text) else {
                throw YAMLSubsetError(line: line.number, reason: "expected a sequence item `- …`")
            }
            let content = String(line.text.dropFirst(line.text == "-" ? 1 : 2))
            if content.isEmpty {
                index += 1
                items.append(try parseBlock(parentIndent: indent))
            } else if try Self.splitKey(content, line: line.number) != nil {
                // `- key: value` opens a mapping whose keys line up with `key`.
                lines[index] = Line(number: line.number, indent: indent + 2, text: content)
                items.append(try parseMapping(indent: indent + 2))
            } else {
                index += 1
                items.append(try Self.inlineValue(content, line: line.number))
            }
        }
        return .sequence(items)
    }

    /// Collects a `|` (literal) or `>` (folded) block scalar: every following line that is blank or deeper.
    private mutating func blockScalar(style: String, parentIndent: Int) -> String {
        var collected: [String] = []
        var blockIndent: Int?
        while index < lines.count {
            let line = lines[index]
            if line.text.isEmpty {
                collected.append("")
                index += 1
                continue
            }
            guard line.indent > parentIndent else { break }
            let indent = blockIndent ?? line.indent
            blockIndent = indent
            collected.append(String(raw[line.number - 1].dropFirst(min(indent, line.indent))))
            index += 1
        }
        while collected.last == "" { collected.removeLast() }
        var text: String
        if style.hasPrefix(">") {
            text = ""
            for (offset, piece) in collected.enumerated() {
                if piece.isEmpty {
                    text += "\n"
                } else {
                    let previousWasText = offset > 0 && !collected[offset - 1].isEmpty
                    text += (previousWasText ? " " : "") + piece
                }
            }
        } else {
            text = collected.joined(separator: "\n")
        }
        return style.hasSuffix("-") ? text : text + "\n"
    }

    /// Splits `key: rest` or `key:`; nil when the text is not a mapping entry.
    private static func splitKey(_ text: String, line: Int) throws(YAMLSubsetError) -> (String, String)? {
        if let first = text.first, first == "\"" || first == "'" {
            let (key, afterKey) = try quoted(text, line: line)
            guard afterKey.hasPrefix(":") else { return nil }
            let rest = afterKey.dropFirst()
            guard rest.isEmpty || rest.hasPrefix(" ") else { return nil }
            return (key, rest.trimmingCharacters(in: .whitespaces))
        }
        if text.hasPrefix("[") || text.hasPrefix("{") { return nil }
        if text.hasSuffix(":"), !text.contains(": ") { return (String(text.dropLast()), "") }
        guard let separator = text.range(of: ": ") else { return nil }
        let key = String(text[..<separator.lowerBound])
        if key.contains(" #") || key.hasPrefix("&") || key.hasPrefix("*") || key.hasPrefix("!") || key.hasPrefix("?") {
            throw YAMLSubsetError(line: line, reason: "unsupported key syntax \"\(key)\"")
        }
        return (key, text[separator.upperBound...].trimmingCharacters(in: .whitespaces))
    }

    private static func inlineValue(_ text: String, line: Int) throws(YAMLSubsetError) -> YAMLNode {
        // The one flow mapping allowed: `{}`, the empty security requirement (`- {}`) that
        // OpenAPI uses to say "no token is also fine".
        if text == "{}" { return .mapping([]) }
        if text.hasPrefix("[") {
            guard text.hasSuffix("]") else { throw YAMLSubsetError(line: line, reason: "unterminated flow list") }
            return .sequence(try flowItems(String(text.dropFirst().dropLast()), line: line).map(YAMLNode.scalar))
        }
        return .scalar(try scalar(text, line: line))
    }

    private static func scalar(_ text: String, line: Int) throws(YAMLSubsetError) -> String {
        if let first = text.first, first == "\"" || first == "'" {
            let (value, rest) = try quoted(text, line: line)
            let trailing = rest.trimmingCharacters(in: .whitespaces)
            guard trailing.isEmpty || trailing.hasPrefix("#") else {
                throw YAMLSubsetError(line: line, reason: "text after a quoted scalar")
            }
            return value
        }
        if let first = text.first, "{&*!%@`|>".contains(first) {
            throw YAMLSubsetError(line: line, reason: "unsupported YAML syntax starting with \"\(first)\" (quote the value)")
        }
        if text.contains(": ") || text.hasSuffix(":") {
            throw YAMLSubsetError(line: line, reason: "a plain scalar may not contain \": \" (quote it)")
        }
        if let comment = text.range(of: " #") { return String(text[..<comment.lowerBound]) }
        return text
    }

    /// Reads a quoted scalar at the start of `text`; returns it and the text after the closing quote.
    private static func quoted(_ text: String, line: Int) throws(YAMLSubsetError) -> (String, String) {
        let characters = Array(text)
        guard let quote = characters.first else { throw YAMLSubsetError(line: line, reason: "empty scalar") }
        var value = ""
        var position = 1
        while position < characters.count {
            let character = characters[position]
            if quote == "'" && character == "'" {
                if position + 1 < characters.count && characters[position + 1] == "'" {
                    value.append("'")
                    position += 2
                    continue
                }
                return (value, String(characters[(position + 1)...]))
            }
            if quote == "\"" && character == "\\" {
                guard position + 1 < characters.count else { break }
                let escaped = characters[position + 1]
                switch escaped {
                case "\"", "\\", "/": value.append(escaped)
                case "n": value.append("\n")
                case "t": value.append("\t")
                default: throw YAMLSubsetError(line: line, reason: "unsupported escape \\\(escaped)")
                }
                position += 2
                continue
            }
            if quote == "\"" && character == "\"" { return (value, String(characters[(position + 1)...])) }
            value.append(character)
            position += 1
        }
        throw YAMLSubsetError(line: line, reason: "unterminated quoted scalar")
    }

    private static func flowItems(_ inner: String, line: Int) throws(YAMLSubsetError) -> [String] {
        var items: [String] = []
        var rest = inner.trimmingCharacters(in: .whitespaces)
        while !rest.isEmpty {
            let item: String
            if let first = rest.first, first == "\"" || first == "'" {
                let (value, after) = try quoted(rest, line: line)
                item = value
                rest = after.trimmingCharacters(in: .whitespaces)
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                let text = rest[..<end].trimmingCharacters(in: .whitespaces)
                if text.isEmpty || text.contains(where: { "[]{}:#&*".contains($0) }) {
                    throw YAMLSubsetError(line: line, reason: "flow lists may hold only scalars")
                }
                item = text
                rest = String(rest[end...])
            }
            items.append(item)
            guard !rest.isEmpty else { break }
            guard rest.hasPrefix(",") else { throw YAMLSubsetError(line: line, reason: "expected \",\" in flow list") }
            rest = rest.dropFirst().trimmingCharacters(in: .whitespaces)
        }
        return items
    }
}

/// `docs/openapi.yaml`, read and queried the way the contract test needs.
struct OpenAPIDocument: Sendable {
    static let httpMethods = ["get", "head", "post", "put", "patch", "delete", "options", "trace"]

    let root: YAMLNode

    static func load() throws -> OpenAPIDocument {
        let url = BinaryRunner.packageRoot.appendingPathComponent("docs/openapi.yaml")
        return OpenAPIDocument(root: try YAMLSubsetReader.parse(try String(contentsOf: url, encoding: .utf8)))
    }

    /// Documented paths and, for each, its upper-cased methods.
    var operations: [(path: String, methods: [String])] {
        (root["paths"]?.entries ?? []).map { entry in
            (entry.key, entry.value.entries.map(\.key).filter(Self.httpMethods.contains).map { $0.uppercased() })
        }
    }

    func operation(_ path: String, _ method: String) -> YAMLNode? {
        root["paths"]?[path]?[method.lowercased()]
    }

    /// The node a local reference (`#/components/...`) points at.
    func node(at reference: String) -> YAMLNode? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: YAMLNode? = root
        for token in reference.dropFirst(2).split(separator: "/") {
            node = node?[String(token).replacing("~1", with: "/").replacing("~0", with: "~")]
        }
        return node
    }

    /// Follows `$ref` until a node without one (at most 16 hops, against cycles).
    func resolve(_ node: YAMLNode) -> YAMLNode? {
        var current = node
        for _ in 0..<16 {
            guard let reference = current["$ref"]?.string else { return current }
            guard let target = self.node(at: reference) else { return nil }
            current = target
        }
        return nil
    }

    /// Every `$ref` in the document, for a check that each resolves.
    var references: [String] {
        var found: [String] = []
        func walk(_ node: YAMLNode) {
            switch node {
            case .scalar: break
            case .sequence(let items): items.forEach(walk)
            case .mapping(let entries):
                for entry in entries {
                    if entry.key == "$ref", let text = entry.value.string { found.append(text) } else { walk(entry.value) }
                }
            }
        }
        walk(root)
        return found
    }

    // MARK: - JSON Schema subset

    /// Checks a JSON value against a schema (resolving `$ref`); returns what is wrong, empty when valid.
    ///
    /// Supports type, enum, const, pattern, min/maxLength, minimum/maximum, min/maxItems,
    /// items, required, properties, additionalProperties, oneOf, anyOf, allOf. An object
    /// schema with `properties` is closed unless it says `additionalProperties: true`, so a
    /// member the document does not list is a failure, not silently accepted.
    func validate(_ value: JSONValue, against schemaNode: YAMLNode, at path: String = "$") -> [String] {
        guard let schema = resolve(schemaNode) else { return ["\(path): unresolvable schema reference"] }
        var problems: [String] = []
        if let alternatives = schema["oneOf"]?.items, !alternatives.isEmpty {
            let matching = alternatives.filter { validate(value, against: $0, at: path).isEmpty }.count
            if matching != 1 { problems.append("\(path): matches \(matching) of the oneOf alternatives, not exactly 1") }
        }
        if let alternatives = schema["anyOf"]?.items, !alternatives.isEmpty,
            !alternatives.contains(where: { validate(value, against: $0, at: path).isEmpty })
        {
            problems.append("\(path): matches none of the anyOf alternatives")
        }
        for part in schema["allOf"]?.items ?? [] { problems += validate(value, against: part, at: path) }
        if let types = schema["type"]?.strings, !types.isEmpty, !types.contains(where: { Self.has(value, type: $0) }) {
            problems.append("\(path): expected \(types.joined(separator: " or ")), got \(value.kindName)")
            return problems
        }
        if let allowed = schema["enum"]?.strings, !allowed.contains(where: { Self.equals(value, $0) }) {
            problems.append("\(path): \(Self.text(value)) is not one of \(allowed)")
        }
        if let constant = schema["const"]?.string, !Self.equals(value, constant) {
            problems.append("\(path): \(Self.text(value)) is not \(constant)")
        }
        switch value {
        case .string(let text):
            if let pattern = schema["pattern"]?.string,
                let regex = try? NSRegularExpression(pattern: pattern),
                regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil
            {
                problems.append("\(path): \"\(text)\" does not match \(pattern)")
            }
            if let limit = schema["maxLength"]?.string.flatMap(Int.init), text.count > limit {
                problems.append("\(path): longer than \(limit)")
            }
            if let limit = schema["minLength"]?.string.flatMap(Int.init), text.count < limit {
                problems.append("\(path): shorter than \(limit)")
            }
        case .number(let number):
            if let limit = schema["minimum"]?.string.flatMap(Double.init), number < limit {
                problems.append("\(path): \(number) < \(limit)")
            }
            if let limit = schema["maximum"]?.string.flatMap(Double.init), number > limit {
                problems.append("\(path): \(number) > \(limit)")
            }
        case .array(let elements):
            if let limit = schema["maxItems"]?.string.flatMap(Int.init), elements.count > limit {
                problems.append("\(path): more than \(limit) items")
            }
            if let limit = schema["minItems"]?.string.flatMap(Int.init), elements.count < limit {
                problems.append("\(path): fewer than \(limit) items")
            }
            if let itemSchema = schema["items"] {
                for (offset, element) in elements.enumerated() {
                    problems += validate(element, against: itemSchema, at: "\(path)[\(offset)]")
                }
            }
        case .object(let object):
            let keys = object.keys
            for key in Set(keys) where keys.filter({ $0 == key }).count > 1 {
                problems.append("\(path): duplicate member \"\(key)\"")
            }
            for key in schema["required"]?.strings ?? [] where object[key] == nil {
                problems.append("\(path): missing required member \"\(key)\"")
            }
            let properties = schema["properties"]
            for member in object.members {
                if let propertySchema = properties?[member.key] {
                    problems += validate(member.value, against: propertySchema, at: "\(path).\(member.key)")
                    continue
                }
                switch schema["additionalProperties"] {
                case .scalar("true")?:
                    break
                case .mapping(let entries)?:
                    problems += validate(member.value, against: .mapping(entries), at: "\(path).\(member.key)")
                case .scalar("false")?, .sequence?, .scalar?, nil:
                    if properties != nil || schema["additionalProperties"]?.string == "false" {
                        problems.append("\(path): member \"\(member.key)\" is not in the schema's properties")
                    }
                }
            }
        case .null, .bool:
            break
        }
        return problems
    }

    private static func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
            ("number", .number):
            true
        case ("integer", .number): value.integerValue != nil
        default: false
        }
    }

    private static func equals(_ value: JSONValue, _ scalar: String) -> Bool {
        switch value {
        case .string(let text): text == scalar
        case .bool(let flag): scalar == (flag ? "true" : "false")
        case .null: scalar == "null"
        case .number(let number): Double(scalar) == number
        case .array, .object: false
        }
    }

    private static func text(_ value: JSONValue) -> String {
        if case .string(let text) = value { return "\"\(text)\"" }
        return value.kindName
    }
}

/// A media type split into `type/subtype` and parameters, all lower-cased (`charset` values too).
struct MediaType: Equatable {
    var essence: String
    var parameters: [String: String]

    init(_ text: String) {
        let parts = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        essence = parts.first ?? ""
        var parameters: [String: String] = [:]
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { parameters[pair[0]] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        self.parameters = parameters
    }

    /// Whether a received Content-Type satisfies this documented one: same essence, and every
    /// documented parameter present with the same value (the server may add others, e.g. charset).
    func isSatisfied(by received: MediaType) -> Bool {
        essence == received.essence && parameters.allSatisfy { received.parameters[$0.key] == $0.value }
    }
}
