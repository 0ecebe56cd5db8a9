import JSONSupport
import NavigationPolicy

// The module's exports (issue 43): what `navpolicy.mjs` calls. Bytes travel through linear
// memory: JavaScript allocates with `navpolicy_alloc` (Shims/wasm-shims.c), copies a UTF-8
// text or a bundle in and passes pointer and length; every call returns a status (a handle of
// 1 or more, 0, or -1) and leaves its output in the call result (`navpolicy_result_pointer`,
// `navpolicy_result_length`): a JSON document, or on -1 the failure as `{"code","message",…}`.
// Nothing here parses, checks or writes a policy, a bundle or a decision itself: it hands
// bytes to the engine and the client's bundle checks and their JSON back.

/// Where the call result starts in linear memory.
@_expose(wasm, "navpolicy_result_pointer")
@_cdecl("navpolicy_result_pointer")
public func navpolicyResultPointer() -> UnsafeRawPointer? { CallResult.pointer }

/// How many bytes the call result has.
@_expose(wasm, "navpolicy_result_length")
@_cdecl("navpolicy_result_length")
public func navpolicyResultLength() -> Int32 { Int32(truncatingIfNeeded: CallResult.count) }

/// Compiles a JSON config (`count` UTF-8 bytes at `bytes`, still the caller's) as the daemon
/// compiles its config file: a policy handle, or -1 with an `invalid-config` failure.
/// The result: `{"handlers":N,"defaultDecision":"allow"|"cancel"}`.
@_expose(wasm, "navpolicy_policy_from_config")
@_cdecl("navpolicy_policy_from_config")
public func navpolicyPolicyFromConfig(_ bytes: UnsafeRawPointer?, _ count: Int32) -> Int32 {
    // Before the bytes are read: JavaScript passes a config over the limit as its length alone
    // (and a null pointer), so that it never grows linear memory, which never shrinks.
    guard Int(count) <= WasmEngine.maximumConfigBytes else { return fail(WasmEngine.configTooLarge(Int(count))) }
    let policy: CompiledPolicy
    do {
        policy = try WasmEngine.configCompiler.compile(UnsafeRawBufferPointer(start: bytes, count: Int(max(count, 0))))
    } catch {
        return fail(WasmFailure(error))
    }
    CallResult.publish(
        .object([
            "handlers": .number(Double(policy.links.count)), "defaultDecision": .string(policy.defaultVerdict.rawValue),
        ]))
    return Handles.policies.insert(LoadedPolicy(policy))
}

/// The most UTF-8 bytes `navpolicy_decide` reads (``WasmEngine/maximumRequestBytes``): JavaScript
/// passes a longer request as its length alone, refused before any byte is read.
@_expose(wasm, "navpolicy_request_bytes_limit")
@_cdecl("navpolicy_request_bytes_limit")
public func navpolicyRequestBytesLimit() -> Int32 { Int32(WasmEngine.maximumRequestBytes) }

/// The most UTF-8 bytes `navpolicy_policy_from_config` reads (``WasmEngine/maximumConfigBytes``).
@_expose(wasm, "navpolicy_config_bytes_limit")
@_cdecl("navpolicy_config_bytes_limit")
public func navpolicyConfigBytesLimit() -> Int32 { Int32(WasmEngine.maximumConfigBytes) }

/// How many of a bundle's first bytes `navpolicy_bundle_open` reads (``OpenedBundle/headBytes``).
@_expose(wasm, "navpolicy_bundle_head_bytes")
@_cdecl("navpolicy_bundle_head_bytes")
public func navpolicyBundleHeadBytes() -> Int32 { Int32(OpenedBundle.headBytes) }

/// Reads a policy bundle up to its signature check (`OpenedBundle`) from its first bytes alone:
/// `head` holds the first `min(bundleCount, navpolicy_bundle_head_bytes())` of the
/// `bundleCount` bytes (a Double: a length past 2 GiB is still refused as `too-large`), and
/// stays the caller's. `keyIDs` is a JSON array of the ids of the trusted keys.
/// Returns an opened-bundle handle, the result `{"keyIds":[…]}` naming the keys the signature
/// must verify with (none: nothing to verify); or -1 (`malformed`, `unversioned`, `unsigned`,
/// `unknown-key`, `too-large`; `invalid-argument` for a trusted id that is no key id).
@_expose(wasm, "navpolicy_bundle_open")
@_cdecl("navpolicy_bundle_open")
public func navpolicyBundleOpen(
    _ head: UnsafeRawPointer?, _ headCount: Int32, _ bundleCount: Double, _ keyIDs: UnsafeRawPointer?,
    _ keyIDsCount: Int32, _ hasSignature: Int32, _ acceptsUnversionedBundles: Int32
) -> Int32 {
    guard bundleCount.isFinite, bundleCount >= 0, bundleCount < 9.0e15, bundleCount.rounded(.down) == bundleCount
    else { return fail(.misuse("the bundle's length is not a count of bytes")) }
    let count = Int(bundleCount)
    guard let head, Int(headCount) == min(count, OpenedBundle.headBytes) else {
        return fail(.misuse("the head must be the bundle's first bytes, \(OpenedBundle.headBytes) or all of a shorter one"))
    }
    let trusted: [String]
    switch try? JSONParser(maximumDepth: 2).parse(UnsafeRawBufferPointer(start: keyIDs, count: Int(max(keyIDsCount, 0)))) {
    case .array(let values)?:
        trusted = values.compactMap { $0.stringValue }
        guard trusted.count == values.count else { return fail(.misuse("key ids must be strings")) }
    default: return fail(.misuse("key ids must be a JSON array"))
    }
    if let failure = WasmEngine.trustedKeyIDsProblem(trusted) { return fail(failure) }
    do {
        let opened = try OpenedBundle(
            prefix: UnsafeRawBufferPointer(start: head, count: Int(headCount)), bundleCount: count,
            trustedKeyIDs: trusted, hasSignature: hasSignature != 0,
            acceptsUnversionedBundles: acceptsUnversionedBundles != 0)
        CallResult.publish(.object(opened.verificationRequest))
        return Handles.openedBundles.insert(opened)
    } catch {
        return fail(WasmFailure(error))
    }
}

/// Finishes an opened bundle (and releases its handle): `signatureVerified` is whether
/// JavaScript verified the signature with one of the keys `navpolicy_bundle_open` named;
/// `nowSeconds` the Unix time the expiry is checked against. `bytes` is the whole bundle,
/// taken over (allocated with `navpolicy_alloc`; kept for a compiled bundle's tables, freed
/// otherwise); JavaScript copies it in only when the signature verified or no key is trusted,
/// and passes null otherwise, which is refused (`bad-signature`) before bytes are needed.
/// A policy handle and the result `{"layout","revision","policyVersion","issuedAt",
/// "expiresAt","keyId"}`, or -1 (`bad-signature`, `malformed`, `expired`, `invalid-policy`).
@_expose(wasm, "navpolicy_bundle_load")
@_cdecl("navpolicy_bundle_load")
public func navpolicyBundleLoad(
    _ opened: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int32, _ nowSeconds: Double, _ signatureVerified: Int32
) -> Int32 {
    // Owned from here, failure or not.
    let whole = bytes.map { start in
        PolicyImageBytes(buffer: UnsafeRawBufferPointer(start: start, count: Int(max(count, 0)))) { buffer in
            buffer.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
        }
    }
    guard let bundle = Handles.openedBundles.remove(opened) else { return fail(.misuse("no such opened bundle")) }
    guard nowSeconds.isFinite, abs(nowSeconds) < 9.0e15 else { return fail(.misuse("the time is not a number of seconds")) }
    do {
        try bundle.checkSignature(verified: signatureVerified != 0)
        guard let whole, whole.buffer.count == bundle.bundleCount else {
            return fail(.misuse("the whole bundle must follow its head"))
        }
        let (policy, summary) = try bundle.load(whole, nowSeconds: BundleNumber(nowSeconds.rounded(.down)))
        CallResult.publish(.object(summary))
        return Handles.policies.insert(LoadedPolicy(policy))
    } catch {
        return fail(WasmFailure(error))
    }
}

/// Drops an opened bundle that will not be loaded (its verification threw).
@_expose(wasm, "navpolicy_bundle_discard")
@_cdecl("navpolicy_bundle_discard")
public func navpolicyBundleDiscard(_ opened: Int32) { _ = Handles.openedBundles.remove(opened) }

/// Decides a request: `count` UTF-8 bytes at `bytes` holding the members of a `POST /v1/decide`
/// body (`url`, `method`, `navigationType`, `targetFrame`, `sourceURL`). 0 and the decision
/// object as `/v1/decide` and `navpolicyd check` write it; or -1 (`invalid-request` with the
/// `field`, `malformed-json`, `payload-too-large`). A caller cancels the navigation on -1.
@_expose(wasm, "navpolicy_decide")
@_cdecl("navpolicy_decide")
public func navpolicyDecide(_ handle: Int32, _ bytes: UnsafeRawPointer?, _ count: Int32) -> Int32 {
    guard let policy = Handles.policies.value(handle)?.policy else {
        return fail(.misuse("no such policy (released?)"))
    }
    // Before the bytes are read: JavaScript passes a request over the limit as its length alone
    // (and a null pointer), so that it never grows linear memory, which never shrinks.
    guard Int(count) <= WasmEngine.maximumRequestBytes else { return fail(WasmEngine.requestTooLarge(Int(count))) }
    do {
        let request = try WasmEngine.request(UnsafeRawBufferPointer(start: bytes, count: Int(max(count, 0))))
        let decision: Decision
        do {
            decision = try policy.decide(request)
        } catch {
            return fail(WasmFailure(error))
        }
        decision.writeOpenObject(to: &CallResult.writer)
        CallResult.writer.writeRaw("}")
        CallResult.publishWriter()
        return 0
    } catch {
        return fail(error)
    }
}

/// Where the words `navpolicy_decide_fields` reads and writes start (``DecisionWords``): 16 `Int32`s.
@_expose(wasm, "navpolicy_decision_words")
@_cdecl("navpolicy_decision_words")
public func navpolicyDecisionWords() -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(DecisionWords.words) }

/// Decides a request given as its members' UTF-8 text, back to back at `bytes`, their lengths
/// in the decision words (``DecisionWords``): the JavaScript API's path, with no JSON in or out.
/// The request is read as `navpolicy_decide` reads a body's members, with the same errors.
/// 0 and the decision in the words and the call result; 1 and the decision object as JSON (a
/// decision with `shadow`); or -1 (`invalid-request` with the `field`, `payload-too-large`).
@_expose(wasm, "navpolicy_decide_fields")
@_cdecl("navpolicy_decide_fields")
public func navpolicyDecideFields(_ handle: Int32, _ bytes: UnsafeRawPointer?) -> Int32 {
    guard let loaded = Handles.policies.value(handle) else { return fail(.misuse("no such policy (released?)")) }
    let request: NavigationRequest
    let decision: Decision
    do {
        request = try DecisionWords.request(bytes)
    } catch {
        return fail(error)
    }
    do {
        decision = try loaded.policy.decide(request)
    } catch {
        return fail(WasmFailure(error))
    }
    return DecisionWords.publish(decision, of: request, names: loaded)
}

/// The policy's name at `index` (a handler or an action a decision named by index) as the call
/// result's UTF-8 text: 0, or -1 for an index no decision has named.
@_expose(wasm, "navpolicy_policy_name")
@_cdecl("navpolicy_policy_name")
public func navpolicyPolicyName(_ handle: Int32, _ index: Int32) -> Int32 {
    guard let names = Handles.policies.value(handle)?.names, names.indices.contains(Int(index)) else {
        return fail(.misuse("no such name"))
    }
    CallResult.writer.writeRaw(names[Int(index)])
    CallResult.publishWriter()
    return 0
}

/// Releases a policy; its handle is reused.
@_expose(wasm, "navpolicy_policy_release")
@_cdecl("navpolicy_policy_release")
public func navpolicyPolicyRelease(_ handle: Int32) { _ = Handles.policies.remove(handle) }

/// Publishes `failure` as the call result; the status JavaScript reads as "throw".
func fail(_ failure: WasmFailure) -> Int32 {
    CallResult.publish(failure.jsonValue)
    return -1
}
