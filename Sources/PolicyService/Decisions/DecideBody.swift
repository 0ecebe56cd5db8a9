import NavigationPolicy

/// A `POST /v1/decide` body of the usual shape read straight from its bytes, without
/// building a JSON tree: one flat object whose members are the request fields and
/// `explain`, each at most once, strings without escapes, all ASCII.
///
/// Everything else (a batch, an escape, a number, non-ASCII text, an unknown or repeated
/// member, a wrong type or value, malformed JSON) is not recognized here: the caller parses
/// the body with the strict JSON parser, which words every error. So this path only ever
/// accepts bodies that the full reading accepts with the same meaning.
struct DecideBody {
    /// The request the body describes.
    var navigation: NavigationRequest
    /// The body's `explain` (false when absent).
    var explain: Bool

    /// A value's position: a string's contents (without quotes), or a literal.
    enum Value {
        case string(Range<Int>)
        case literal(Bool)
        case null
    }

    /// The body read, or nil when it needs the full parser.
    static func read(_ body: UnsafeBufferPointer<UInt8>) -> DecideBody? {
        var cursor = 0
        func skipWhitespace() {
            while cursor < body.count,
                body[cursor] == 0x20 || body[cursor] == 0x0A || body[cursor] == 0x0D
                    || body[cursor] == 0x09
            {
                cursor += 1
            }
        }
        /// The contents of the string at the cursor, which must hold no escape, control or
        /// non-ASCII byte; the cursor moves past its closing quote.
        func string() -> Range<Int>? {
            guard cursor < body.count, body[cursor] == UInt8(ascii: "\"") else { return nil }
            let start = cursor + 1
            var end = start
            while end < body.count {
                let byte = body[end]
                if byte == UInt8(ascii: "\"") {
                    cursor = end + 1
                    return start..<end
                }
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
                end += 1
            }
            return nil
        }
        func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard body.count - cursor >= count else { return false }
            for offset in 0..<count where body[cursor + offset] != text.utf8Start[offset] { return false }
            cursor += count
            return true
        }
        func value() -> Value? {
            guard cursor < body.count else { return nil }
            switch body[cursor] {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "t"): return literal("true") ? .literal(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .literal(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return nil
            }
        }

        var fields = DecideMembers<Value>()
        skipWhitespace()
        guard cursor < body.count, body[cursor] == UInt8(ascii: "{") else { return nil }
        cursor += 1
        skipWhitespace()
        if cursor < body.count, body[cursor] == UInt8(ascii: "}") { return nil }  // `{}`: url is missing
        while true {
            skipWhitespace()
            guard let key = string() else { return nil }
            skipWhitespace()
            guard cursor < body.count, body[cursor] == UInt8(ascii: ":") else { return nil }
            cursor += 1
            skipWhitespace()
            guard let member = value(), let name = DecideMemberName(body, key), fields.assign(name, member) else {
                return nil
            }
            skipWhitespace()
            guard cursor < body.count else { return nil }
            if body[cursor] == UInt8(ascii: ",") {
                cursor += 1
                continue
            }
            guard body[cursor] == UInt8(ascii: "}") else { return nil }
            cursor += 1
            break
        }
        skipWhitespace()
        guard cursor == body.count else { return nil }
        return fields.request(in: body)
    }
}

extension DecideMembers<DecideBody.Value> {
    /// The request, when every member has the type (and every enumeration the value) the
    /// full reading accepts; nil leaves the wording of the error to it.
    func request(in body: UnsafeBufferPointer<UInt8>) -> DecideBody? {
        /// A string member's text; `.some(nil)` for absent or null, nil for a wrong type.
        func text(_ value: DecideBody.Value?) -> String?? {
            switch value {
            case nil, .null?: return .some(nil)
            case .string(let range)?:
                return .some(String(decoding: UnsafeBufferPointer(rebasing: body[range]), as: UTF8.self))
            case .literal?: return nil
            }
        }
        let explainFlag: Bool
        switch explain {
        case nil: explainFlag = false
        case .literal(let flag)?: explainFlag = flag
        default: return nil
        }
        guard case .some(.some(let url)) = text(url), case .some(let source) = text(sourceURL) else { return nil }
        // The defaults of an absent or null member are the request's own; the request is built
        // once with every field (each copy of it retains and releases its Strings).
        let defaults = NavigationRequest(url: "")
        var requestMethod = defaults.method
        var type = defaults.navigationType
        var frame = defaults.targetFrame
        // The enumerations and the usual methods are recognised on the bytes: a String built
        // only to be looked up and dropped cost ~0.2k instructions each.
        switch method {
        case nil, .null?: break
        case .string(let range)?:
            requestMethod =
                Self.knownMethod(body, range) ?? String(decoding: UnsafeBufferPointer(rebasing: body[range]), as: UTF8.self)
        case .literal?: return nil
        }
        switch navigationType {
        case nil, .null?: break
        case .string(let range)?:
            guard let parsed = Self.navigationType(body, range) else { return nil }
            type = parsed
        case .literal?: return nil
        }
        switch targetFrame {
        case nil, .null?: break
        case .string(let range)?:
            guard let parsed = Self.targetFrame(body, range) else { return nil }
            frame = parsed
        case .literal?: return nil
        }
        return DecideBody(
            navigation: NavigationRequest(
                url: url, method: requestMethod, navigationType: type, targetFrame: frame, sourceURL: source),
            explain: explainFlag)
    }

    /// The method's String when the bytes spell one of the usual methods exactly; nil for any
    /// other spelling, which is built from the bytes (and normalized later, as before).
    private static func knownMethod(_ body: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        func spells(_ name: StaticString) -> Bool { DecideMemberName.spells(body, range, name) }
        switch range.count {
        case 3 where spells("GET"): return "GET"
        case 4 where spells("POST"): return "POST"
        case 4 where spells("HEAD"): return "HEAD"
        default: return nil
        }
    }

    /// The navigation type the bytes spell exactly (what `NavigationType(rawValue:)` accepts).
    private static func navigationType(_ body: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> NavigationType? {
        func spells(_ name: StaticString) -> Bool { DecideMemberName.spells(body, range, name) }
        switch range.count {
        case 13 where spells("linkActivated"): return .linkActivated
        case 13 where spells("formSubmitted"): return .formSubmitted
        case 11 where spells("backForward"): return .backForward
        case 6 where spells("reload"): return .reload
        case 15 where spells("formResubmitted"): return .formResubmitted
        case 5 where spells("other"): return .other
        default: return nil
        }
    }

    /// The target frame the bytes spell exactly (what `TargetFrame(rawValue:)` accepts).
    private static func targetFrame(_ body: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> TargetFrame? {
        func spells(_ name: StaticString) -> Bool { DecideMemberName.spells(body, range, name) }
        switch range.count {
        case 4 where spells("main"): return .main
        case 3 where spells("sub"): return .sub
        default: return nil
        }
    }
}
