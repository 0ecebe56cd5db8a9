/// Decoding of `application/x-www-form-urlencoded` text (WHATWG URL §5.1), used for queries.
enum FormURLDecoding {
    /// Splits `text` on `&`, then each part on its first `=`; '+' becomes a space and
    /// percent escapes are decoded. Empty parts are skipped; invalid escapes stay literal
    /// and invalid UTF-8 becomes U+FFFD, so hostile input never fails.
    static func pairs(_ text: String) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for part in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = part.firstIndex(of: UInt8(ascii: "=")) {
                let name = part[part.startIndex..<equals]
                let value = part[part.index(after: equals)...]
                result.append((name: decode(name), value: decode(value)))
            } else {
                result.append((name: decode(part), value: ""))
            }
        }
        return result
    }

    /// Percent-decodes one component, treating '+' as a space.
    static func decode(_ component: some Collection<UInt8>) -> String {
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
                // Not a valid escape: the '%' stays literal, as browsers do.
                output.append(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
