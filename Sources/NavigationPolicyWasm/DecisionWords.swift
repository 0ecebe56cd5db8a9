import JSONSupport
import NavigationPolicy

/// The numbers `navpolicy_decide_fields` and JavaScript exchange, in one small block of linear
/// memory that JavaScript views as an `Int32Array` (`navpolicy_decision_words`): the request's
/// member lengths in, the decision's verdict, name indexes and string lengths out. A decision
/// through them costs no JSON on either side: the API's objects are built and read in
/// JavaScript from strings it already has (docs/performance.md, "Issue 43").
///
/// In, before the call (UTF-8 byte counts of the members, back to back at the call's pointer;
/// -1 for an absent member):
/// - 0 `url`, 1 `method`, 2 `navigationType`, 3 `targetFrame`, 4 `sourceURL`.
///
/// Out, after a call that returned 0:
/// - 8 the verdict: 0 allow, 1 cancel;
/// - 9 `handler`, 10 `action`: an index into the policy's names (``LoadedPolicy/names``), -1 for null;
/// - 11 `location`: its UTF-8 byte count at the start of the call result, -1 for null;
/// - 12 `url`: its byte count in the call result after the location, or -2 when the decision's
///   URL is the request's `url` unchanged (JavaScript has it already);
/// - 13 where the call result starts.
enum DecisionWords {
    static let verdict = 8
    static let handler = 9
    static let action = 10
    static let location = 11
    static let url = 12
    static let resultPointer = 13
    /// Word 12's value for "the request's URL, unchanged".
    static let sameURL: Int32 = -2

    // The module is single-threaded (one WebAssembly instance, one JavaScript thread).
    nonisolated(unsafe) static let words: UnsafeMutablePointer<Int32> = {
        let words = UnsafeMutablePointer<Int32>.allocate(capacity: 16)
        words.initialize(repeating: 0, count: 16)
        return words
    }()

    /// The request the member strings at `bytes` make, read by the reader `NavigationRequest(json:)`
    /// also ends in, so a member fails here as it does in a JSON body.
    static func request(_ bytes: UnsafeRawPointer?) throws(WasmFailure) -> NavigationRequest {
        // Five locals, not an array of members: an array was an allocation (and its release) a call.
        var offset = 0
        let url = try member(0, at: bytes, &offset)
        let method = try member(1, at: bytes, &offset)
        let navigationType = try member(2, at: bytes, &offset)
        let targetFrame = try member(3, at: bytes, &offset)
        let sourceURL = try member(4, at: bytes, &offset)
        do {
            return try NavigationRequest(
                url: url, methodText: method, navigationTypeText: navigationType, targetFrameText: targetFrame,
                sourceURL: sourceURL)
        } catch {
            throw WasmFailure(error)
        }
    }

    /// Member `field`'s text, `offset` bytes into `bytes` (then moved past it); nil when absent.
    private static func member(
        _ field: Int, at bytes: UnsafeRawPointer?, _ offset: inout Int
    ) throws(WasmFailure) -> String? {
        let count = Int(words[field])
        guard count >= 0 else {
            guard count == -1 else { throw .misuse("a member's length is negative") }
            return nil
        }
        // The JSON body's bound: the members alone never exceed what a body holding them would.
        guard offset + count <= WasmEngine.maximumRequestBytes else {
            throw WasmFailure(
                code: "payload-too-large",
                message: "the request is over \(offset + count) bytes; at most \(WasmEngine.maximumRequestBytes)")
        }
        guard let bytes else { throw .misuse("no request bytes") }
        let text = String(
            validating: UnsafeBufferPointer(start: (bytes + offset).assumingMemoryBound(to: UInt8.self), count: count),
            as: UTF8.self)
        // TextEncoder.encodeInto writes only UTF-8; anything else is the glue's bug.
        guard let text else { throw .misuse("a member is not UTF-8") }
        offset += count
        return text
    }

    /// Publishes `decision` in the words and the call result; 0, or 1 when it carries what the
    /// words do not hold (`shadow`): then the call result is the decision object as JSON.
    static func publish(_ decision: Decision, of request: NavigationRequest, names: LoadedPolicy) -> Int32 {
        if decision.shadow != nil {
            decision.writeOpenObject(to: &CallResult.writer)
            CallResult.writer.writeRaw("}")
            CallResult.publishWriter()
            return 1
        }
        CallResult.writer.removeAll()
        words[verdict] = decision.verdict == .cancel ? 1 : 0
        words[handler] = decision.handler.map { names.index(of: $0) } ?? -1
        words[action] = decision.action.map { names.index(of: $0) } ?? -1
        if let location = decision.location {
            CallResult.writer.writeRaw(location)
            words[self.location] = Int32(truncatingIfNeeded: CallResult.writer.bytes.count)
        } else {
            words[self.location] = -1
        }
        // Byte for byte, not `==`: under canonical equivalence JavaScript handed back a caller's
        // text that only normalizes to the href (outside attack round 11, F1).
        if decision.url.hasSameUTF8(as: request.url) {
            words[url] = sameURL
        } else {
            let start = CallResult.writer.bytes.count
            CallResult.writer.writeRaw(decision.url)
            words[url] = Int32(truncatingIfNeeded: CallResult.writer.bytes.count - start)
        }
        CallResult.publishWriter()
        words[resultPointer] = Int32(truncatingIfNeeded: Int(bitPattern: CallResult.pointer))
        return 0
    }
}
