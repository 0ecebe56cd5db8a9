import JSONSupport

/// The JSON parser: errors, never traps; and what it accepts respects its own rules —
/// no object with a repeated member name, no nesting deeper than the limit, and writing the
/// value out and parsing it again gives the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    let strict = JSONParser(maximumDepth: 16, rejectsDuplicateMembers: true)
    let lenient = JSONParser(maximumDepth: 16, rejectsDuplicateMembers: false)
    let strictResult = Result { () throws(JSONParseError) in try strict.parse(bytes) }
    let lenientResult = Result { () throws(JSONParseError) in try lenient.parse(bytes) }
    guard case .success(let value) = strictResult else {
        if case .failure(let error) = strictResult, error.offset < 0 || error.offset > bytes.count {
            fatalError("error offset \(error.offset) outside the \(bytes.count)-byte input")
        }
        return 0
    }
    guard case .success(let lenientValue) = lenientResult, lenientValue == value else {
        fatalError("the lenient parser rejects or reads differently what the strict one accepts")
    }
    check(value, depth: 1)
    var writer = JSONWriter()
    writer.write(value)
    guard let reparsed = try? JSONParser(maximumDepth: 16).parse(writer.bytes) else {
        fatalError("written JSON does not parse again: \(writer.string.debugDescription)")
    }
    if !sameValue(reparsed, value) {
        fatalError("written JSON reads back differently: \(writer.string.debugDescription)")
    }
    return 0
}

private func check(_ value: JSONValue, depth: Int) {
    switch value {
    case .object(let object):
        if depth > 16 { fatalError("accepted an object nested \(depth) deep (limit 16)") }
        var seen = Set<String>()
        for member in object.members {
            if !seen.insert(member.key).inserted { fatalError("accepted a duplicate member \(member.key.debugDescription)") }
            check(member.value, depth: depth + 1)
        }
    case .array(let elements):
        if depth > 16 { fatalError("accepted an array nested \(depth) deep (limit 16)") }
        for element in elements { check(element, depth: depth + 1) }
    default:
        break
    }
}

/// Equality where numbers may differ in their last bits after a round trip through text.
private func sameValue(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.number(let a), .number(let b)): return a == b || (a.isNaN && b.isNaN) || abs(a - b) <= abs(a) * 1e-15
    case (.object(let a), .object(let b)):
        return a.members.count == b.members.count
            && zip(a.members, b.members).allSatisfy { $0.key == $1.key && sameValue($0.value, $1.value) }
    case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy(sameValue)
    default: return lhs == rhs
    }
}
