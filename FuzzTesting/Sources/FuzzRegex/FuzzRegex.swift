import NavigationPolicy

/// ECMARegex, the engine behind URLPattern's regexp groups, on a person's pattern and any subject.
/// Input: one flags byte (bit 0 = `i`, bit 1 = `v` instead of `u`), the pattern up to the first
/// NUL, the subject after it. Invariants beyond "no crash":
/// - a refusal carries a message and an offset inside the pattern;
/// - a run stays within the linear step bound (2 × states × (subject scalars + 1));
/// - a result has one element per group plus the match, the match is present and is part of
///   the subject, and `matches` agrees with `exec`;
/// - a program run one-pass gives the Pike VM's result (match and every group).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRegex(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    guard let flags = bytes.first else { return 0 }
    let rest = bytes.dropFirst()
    let separator = rest.firstIndex(of: 0) ?? rest.endIndex
    let pattern = String(decoding: rest[rest.startIndex..<separator], as: UTF8.self)
    let subject = String(decoding: rest[min(separator + 1, rest.endIndex)...], as: UTF8.self)

    let regex: ECMARegex
    do {
        regex = try ECMARegex(pattern, ignoreCase: flags & 1 != 0, unicodeSets: flags & 2 != 0)
    } catch {
        if error.message.isEmpty || error.offset < 0 || error.offset > pattern.unicodeScalars.count {
            fatalError(
                "refusal without a message or with an offset outside the pattern: \(error) for \(pattern.debugDescription)"
            )
        }
        return 0
    }

    let scalarCount = subject.unicodeScalars.count
    let (result, steps) = regex.execCountingSteps(subject)
    if steps > regex.stepBound(scalarCount: scalarCount) {
        fatalError("\(steps) steps over the bound \(regex.stepBound(scalarCount: scalarCount)) for \(pattern.debugDescription)")
    }
    if regex.matches(subject) != (result != nil) {
        fatalError("matches disagrees with exec for \(pattern.debugDescription) on \(subject.debugDescription)")
    }
    if regex.isOnePass, regex.pikeVMExec(subject).result != result {
        fatalError(
            "the one-pass matcher disagrees with the Pike VM for \(pattern.debugDescription) on \(subject.debugDescription)")
    }
    guard let result else { return 0 }
    guard result.count == regex.captureCount + 1, let whole = result[0] else {
        fatalError("malformed result \(result) for \(pattern.debugDescription)")
    }
    if !containsScalars(subject, whole) {
        fatalError("match \(whole.debugDescription) is not part of \(subject.debugDescription)")
    }
    return 0
}

/// Whether `part`'s scalars occur contiguously in `whole`'s (no Foundation here).
private func containsScalars(_ whole: String, _ part: String) -> Bool {
    let haystack = Array(whole.unicodeScalars)
    let needle = Array(part.unicodeScalars)
    guard needle.count <= haystack.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
        return true
    }
    return false
}
