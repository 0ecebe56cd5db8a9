import JSONSupport

/// `application/json` intake bodies: the plain `{url, title, text, tags}` form or
/// `{extensionItems: […]}` mirroring NSExtensionItem / NSItemProvider.
struct JSONPayload {
    let limits: IntakeLimits

    /// The members of the plain form.
    static let plainKeys = ["url", "title", "text", "tags"]
    /// The members next to `extensionItems` (the items carry the URL, title and text).
    static let extensionItemsKeys = ["extensionItems", "tags"]

    func parse(_ body: [UInt8]) throws(IntakeFailure) -> SharedPayload {
        let document: JSONValue
        do {
            document = try JSONParser(maximumDepth: limits.jsonDepth).parse(body)
        } catch {
            throw IntakeFailure(.malformedBody, "the body is not valid JSON: \(error)")
        }
        try Self.rejectNUL(in: document, at: "")
        guard case .object(let object) = document else {
            throw IntakeFailure(.malformedBody, "the body must be a JSON object, not \(document.kindName)")
        }
        if object["extensionItems"] != nil {
            try JSONMembers.rejectUnknown(object, allowed: Self.extensionItemsKeys, at: "")
        } else {
            try JSONMembers.rejectUnknown(object, allowed: Self.plainKeys, at: "")
        }
        let tags = try tags(object["tags"])
        if let items = object["extensionItems"] {
            var payload = try ExtensionItems(limits: limits).payload(from: items)
            payload.tags = tags
            return payload
        }
        let share = ShareFields(
            url: try Self.optionalString(object["url"], at: "/url"),
            title: try Self.optionalString(object["title"], at: "/title"),
            text: try Self.optionalString(object["text"], at: "/text"))
        return SharedPayload(format: .json, urls: [try share.urlCandidate()], title: share.title, text: share.text, tags: tags)
    }

    /// A string member, or nil when absent or null.
    static func optionalString(_ value: JSONValue?, at pointer: String) throws(IntakeFailure) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text.nonEmpty
        case let other?: throw .at(pointer, .malformedBody, "expected a string, got \(other.kindName)")
        }
    }

    private func tags(_ value: JSONValue?) throws(IntakeFailure) -> [String] {
        guard let value, value != .null else { return [] }
        guard case .array(let elements) = value else {
            throw .at("/tags", .malformedBody, "expected an array of strings, got \(value.kindName)")
        }
        guard elements.count <= limits.tags else {
            throw .at("/tags", .malformedBody, "at most \(limits.tags) tags")
        }
        var tags: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let tag) = element else {
                throw .at("/tags/\(index)", .malformedBody, "expected a string, got \(element.kindName)")
            }
            let trimmed = tag.trimmingASCIIWhitespace
            guard trimmed.utf8.count <= limits.tagBytes else {
                throw .at("/tags/\(index)", .malformedBody, "a tag may hold at most \(limits.tagBytes) bytes")
            }
            if !trimmed.isEmpty, !tags.contains(trimmed) { tags.append(trimmed) }
        }
        return tags
    }

    /// `\u0000` escapes decode to NUL; the parser already refused raw NUL and invalid UTF-8.
    private static func rejectNUL(in value: JSONValue, at pointer: String) throws(IntakeFailure) {
        switch value {
        case .string(let text):
            if text.utf8.contains(0) { throw .at(pointer, .malformedBody, "contains a NUL character") }
        case .array(let elements):
            for (index, element) in elements.enumerated() { try rejectNUL(in: element, at: "\(pointer)/\(index)") }
        case .object(let object):
            for member in object.members {
                if member.key.utf8.contains(0) { throw .at(pointer, .malformedBody, "a key contains a NUL character") }
                try rejectNUL(in: member.value, at: JSONMembers.pointer(pointer, member.key))
            }
        default:
            return
        }
    }
}
