import JSONSupport

/// `{"extensionItems": […]}`: NSExtensionItem values as a share extension serializes them,
/// each with NSItemProvider attachments (`registeredTypeIdentifiers` and the loaded `items`).
///
/// Per extension item, the URL is the first of (issue 4): a `public.url` value; a value of a
/// type conforming to `public.url` (`public.file-url` conforms but is no web URL, so it is
/// rejected later by the scheme rule); the `url` of a `com.apple.property-list` JavaScript
/// preprocessing result; a URL in `public.plain-text` / `public.text`; one in
/// `attributedContentText`, then `attributedTitle`.
struct ExtensionItems {
    static let urlType = "public.url"
    /// Types whose declaration conforms to `public.url` (Apple's UTType list).
    static let urlConformingTypes = ["public.file-url", "com.apple.itunes.store-url"]
    static let propertyListType = "com.apple.property-list"
    static let textTypes = ["public.plain-text", "public.utf8-plain-text", "public.text"]
    static let urlNameType = "public.url-name"
    /// The key Safari wraps the JavaScript preprocessing result in.
    static let javaScriptResultsKey = "NSExtensionJavaScriptPreprocessingResultsKey"
    /// The NSExtensionItem keys intake reads; others are tolerated unless they look like a misspelling of one.
    static let itemKeys = ["attributedTitle", "attributedContentText", "userInfo", "attachments"]
    /// The NSItemProvider keys intake reads, tolerated likewise.
    static let attachmentKeys = ["registeredTypeIdentifiers", "items"]

    let limits: IntakeLimits

    /// One extension item reduced to what intake needs.
    private struct Resolved {
        var url: String?
        var title: String?
        var text: String?
        var userInfo: JSONValue
    }

    func payload(from value: JSONValue) throws(IntakeFailure) -> SharedPayload {
        guard case .array(let items) = value else {
            throw .at("/extensionItems", .malformedBody, "expected an array, got \(value.kindName)")
        }
        guard !items.isEmpty else { throw .at("/extensionItems", .noURLFound, "no extension items") }
        guard items.count <= limits.extensionItems else {
            throw IntakeFailure(
                .payloadTooLarge, "at most \(limits.extensionItems) extension items",
                extensions: ["limit": .number(Double(limits.extensionItems)), "pointer": .string("/extensionItems")])
        }
        var resolved: [Resolved] = []
        for (index, item) in items.enumerated() {
            resolved.append(try resolve(item, at: "/extensionItems/\(index)"))
        }
        let withURL = resolved.filter { $0.url != nil }
        guard let first = withURL.first else {
            throw IntakeFailure(
                .noURLFound, "no extension item has a URL attachment or a URL in its text or title",
                extensions: [
                    "searched": .array(
                        ([Self.urlType] + Self.urlConformingTypes + [Self.propertyListType] + Self.textTypes
                            + ["attributedContentText", "attributedTitle"]).map(JSONValue.string))
                ])
        }
        let userInfos = resolved.map(\.userInfo)
        return SharedPayload(
            format: .extensionItems, urls: withURL.compactMap(\.url), title: first.title, text: first.text,
            userInfo: userInfos.contains { $0 != .null } ? .array(userInfos) : nil)
    }

    private func resolve(_ value: JSONValue, at pointer: String) throws(IntakeFailure) -> Resolved {
        guard case .object(let item) = value else {
            throw .at(pointer, .malformedBody, "expected an object, got \(value.kindName)")
        }
        try JSONMembers.rejectMisspelled(item, known: Self.itemKeys, at: pointer)
        let attributedTitle = try JSONPayload.optionalString(item["attributedTitle"], at: pointer + "/attributedTitle")
        let contentText = try JSONPayload.optionalString(
            item["attributedContentText"], at: pointer + "/attributedContentText")
        let userInfo = try self.userInfo(item["userInfo"], at: pointer + "/userInfo")
        let attachments = try self.attachments(item["attachments"], at: pointer + "/attachments")

        /// The first loaded value of one of `types`, with the pointer to that exact value.
        func firstValue(ofTypes types: [String]) -> (type: String, value: JSONValue, pointer: String)? {
            for attachment in attachments {
                // By bytes: `contains` and a `String`-keyed dictionary normalize a client's type
                // identifier first, quadratic in a run of combining marks (outside attack 16, F2).
                for type in attachment.registered where types.containsSameUTF8(type) {
                    if let value = attachment.items[UTF8Key(type)] {
                        return (type, value, JSONMembers.pointer(attachment.pointer + "/items", type))
                    }
                }
            }
            return nil
        }
        var url: String?
        var javaScriptTitle: String?
        if let (type, found, at) = firstValue(ofTypes: [Self.urlType]) ?? firstValue(ofTypes: Self.urlConformingTypes) {
            url = try Self.string(found, type: type, at: at)
        } else if let (type, found, at) = firstValue(ofTypes: [Self.propertyListType]) {
            guard case .object(var results) = found else {
                throw .at(at, .typeIdentifierMismatch, "\(type) must be an object (the JavaScript result)")
            }
            var resultsPointer = at
            if case .object(let wrapped)? = results[Self.javaScriptResultsKey] {
                results = wrapped
                resultsPointer = JSONMembers.pointer(at, Self.javaScriptResultsKey)
            }
            url = try JSONPayload.optionalString(results["url"], at: resultsPointer + "/url")
            javaScriptTitle = try JSONPayload.optionalString(results["title"], at: resultsPointer + "/title")
        }
        var plainText: String?
        if let (type, found, at) = firstValue(ofTypes: Self.textTypes) {
            plainText = try Self.string(found, type: type, at: at)
        }
        if url == nil { url = plainText.flatMap(FreeTextURL.first(in:)) }
        if url == nil { url = contentText.flatMap(FreeTextURL.first(in:)) }
        if url == nil { url = attributedTitle.flatMap(FreeTextURL.first(in:)) }
        var urlName: String?
        if let (type, found, at) = firstValue(ofTypes: [Self.urlNameType]) {
            urlName = try Self.string(found, type: type, at: at)
        }
        // Title: JavaScript result > attributedTitle > public.url-name > content text unless it is just the URL.
        let contentTitle = contentText.flatMap { $0.trimmingASCIIWhitespace == url?.trimmingASCIIWhitespace ? nil : $0 }
        return Resolved(
            url: url, title: javaScriptTitle ?? attributedTitle ?? urlName?.nonEmpty ?? contentTitle,
            text: contentText ?? plainText, userInfo: userInfo)
    }

    private struct Attachment {
        /// Where it is in the body (`/extensionItems/0/attachments/1`).
        var pointer: String
        var registered: [String]
        var items: [UTF8Key: JSONValue]
    }

    private func attachments(_ value: JSONValue?, at pointer: String) throws(IntakeFailure) -> [Attachment] {
        guard let value, value != .null else { return [] }
        guard case .array(let elements) = value else {
            throw .at(pointer, .malformedBody, "expected an array, got \(value.kindName)")
        }
        guard elements.count <= limits.attachmentsPerItem else {
            throw IntakeFailure(
                .payloadTooLarge, "at most \(limits.attachmentsPerItem) attachments per extension item",
                extensions: ["limit": .number(Double(limits.attachmentsPerItem)), "pointer": .string(pointer)])
        }
        var attachments: [Attachment] = []
        for (index, element) in elements.enumerated() {
            let here = "\(pointer)/\(index)"
            guard case .object(let object) = element else {
                throw .at(here, .malformedBody, "expected an object, got \(element.kindName)")
            }
            try JSONMembers.rejectMisspelled(object, known: Self.attachmentKeys, at: here)
            guard case .array(let typeValues)? = object["registeredTypeIdentifiers"] else {
                throw .at(here + "/registeredTypeIdentifiers", .malformedBody, "required: an array of type identifiers")
            }
            var registered: [String] = []
            for (typeIndex, typeValue) in typeValues.enumerated() {
                guard case .string(let type) = typeValue, !type.isEmpty else {
                    throw .at("\(here)/registeredTypeIdentifiers/\(typeIndex)", .malformedBody, "expected a type identifier")
                }
                registered.append(type)
            }
            var items: [UTF8Key: JSONValue] = [:]
            switch object["items"] {
            case nil, .null?: break
            case .object(let loaded)?:
                for member in loaded.members {
                    // NSItemProvider only loads registered types: anything else was made up.
                    guard registered.containsSameUTF8(member.key) else {
                        throw .at(
                            JSONMembers.pointer(here + "/items", member.key), .typeIdentifierMismatch,
                            "\"\(member.key)\" is not in registeredTypeIdentifiers")
                    }
                    if items[UTF8Key(member.key)] == nil { items[UTF8Key(member.key)] = member.value }
                }
            case let other?:
                throw .at(here + "/items", .malformedBody, "expected an object, got \(other.kindName)")
            }
            attachments.append(Attachment(pointer: here, registered: registered, items: items))
        }
        return attachments
    }

    private func userInfo(_ value: JSONValue?, at pointer: String) throws(IntakeFailure) -> JSONValue {
        guard let value, value != .null else { return .null }
        guard case .object = value else { throw .at(pointer, .malformedBody, "expected an object, got \(value.kindName)") }
        let size = value.serializedBytes.count
        guard size <= limits.userInfoBytes else {
            throw IntakeFailure(
                .payloadTooLarge, "\(pointer) holds \(size) bytes; at most \(limits.userInfoBytes)",
                extensions: ["limit": .number(Double(limits.userInfoBytes)), "pointer": .string(pointer)])
        }
        return value
    }

    /// URL and text types load as strings; anything else means the client mislabelled the value.
    private static func string(_ value: JSONValue, type: String, at pointer: String) throws(IntakeFailure) -> String {
        guard case .string(let text) = value else {
            throw .at(pointer, .typeIdentifierMismatch, "a \(type) value must be a string, not \(value.kindName)")
        }
        return text
    }
}
