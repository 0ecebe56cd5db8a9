/// Web Share Target forms: `url`, `title` and `text` fields, urlencoded or multipart.
enum FormPayload {
    /// Builds the payload from decoded fields; the first occurrence of a name wins and
    /// unknown names are ignored (manifests may map extra params).
    static func payload(from fields: [(name: String, value: String)], format: SharedPayload.Format)
        throws(IntakeFailure) -> SharedPayload
    {
        func first(_ name: String) -> String? { fields.first { $0.name == name }?.value.nonEmpty }
        let share = ShareFields(url: first("url"), title: first("title"), text: first("text"))
        let url = try share.urlCandidate()
        return SharedPayload(format: format, urls: [url], title: share.title, text: share.text)
    }

    /// Decodes `application/x-www-form-urlencoded` strictly: the decoded bytes must be UTF-8
    /// without NUL, because `%FF` or `%00` in a share is an attack or a bug, never a title.
    static func decodeURLEncoded(_ text: String) throws(IntakeFailure) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for part in text.utf8.split(separator: UInt8(ascii: "&")) {
            let pieces = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decodeComponent(pieces.first.map { Array($0) } ?? [])
            let value = pieces.count > 1 ? try decodeComponent(Array(pieces[1])) : ""
            fields.append((name: name, value: value))
        }
        return fields
    }

    private static func decodeComponent(_ component: some Collection<UInt8>) throws(IntakeFailure) -> String {
        let input = Array(component)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < input.count,
                let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        guard let decoded = String(validating: output, as: UTF8.self) else {
            throw IntakeFailure(.malformedBody, "a form field decodes to invalid UTF-8")
        }
        try PayloadParser.rejectNUL(decoded, in: "a form field")
        return decoded
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
