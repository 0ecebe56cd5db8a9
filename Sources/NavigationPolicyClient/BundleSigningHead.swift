internal import JSONSupport
internal import NavigationPolicy

/// What a JSON bundle's signature check needs to know before the bundle is parsed: its layout
/// version and the `keyId` it names, read from the members before `policy`, within the first
/// ``maximumBytes`` of the document.
///
/// The signature is detached but the key it must verify with is named inside the signed JSON,
/// so something must be read before anything is trusted. Parsing the whole document for that
/// let an unsigned 32 MiB bundle cost 466 MB of parse tree natively (and WebAssembly linear
/// memory that never shrinks) before it was refused (attack round 7, F7). The daemon's writer
/// puts `format`, `version`, `revision`, the freshness members and `keyId` before `policy`
/// (docs/bundles.md), a few hundred bytes; only those are read here, so an untrusted key, a
/// missing signature or an unversioned bundle is refused at the cost of that head, and the chain
/// is parsed only once its signature verified.
///
/// Nothing read here is trusted: ``BundleDocument/init(bytes:signedHead:)`` parses the whole
/// document after the check and refuses it when it disagrees with this head, so a `keyId` that
/// only a full parse would see (after `policy`) cannot choose a key either way.
struct BundleSigningHead: Equatable {
    /// Whether the layout is version 1 (no key id, read only with `acceptsUnversionedBundles`).
    let isVersionOne: Bool
    /// The `keyId` named before `policy`, when it is a string.
    let keyId: String?

    /// The head is read from at most this many bytes; the daemon writes it in under 400.
    static let maximumBytes = 64 * 1024

    /// Reads the head of the JSON bundle `bytes` (already held to ``BundleDocument/maximumBytes``).
    ///
    /// - Throws: `malformed` when the head is not JSON, not an object, repeats or adds a member,
    ///   has no `version` before `policy`, or does not end within ``maximumBytes``.
    init(_ bytes: UnsafeRawBufferPointer) throws(BundleRejection) {
        try self.init(prefix: bytes, bundleCount: bytes.count)
    }

    /// Reads the head from the first bytes of a JSON bundle of `bundleCount` bytes: `prefix` holds
    /// at least `min(bundleCount, maximumBytes)` of them. The same head, and the same refusal, as
    /// ``init(_:)`` over the whole bundle: the WebAssembly build checks a bundle from a copy of
    /// its head alone, so that one nobody trusted signed never reaches linear memory whole
    /// (attack round 10, F5).
    init(prefix: UnsafeRawBufferPointer, bundleCount: Int) throws(BundleRejection) {
        let isCut = bundleCount > Self.maximumBytes
        let head = Self.wholeCharacters(Array(prefix.prefix(Self.maximumBytes)), isCut: isCut)
        // Each step of the reader, its parse error turned into the bundle's refusal.
        func read<Value>(_ step: () throws(JSONParseError) -> Value) throws(BundleRejection) -> Value {
            do {
                return try step()
            } catch {
                // Past the cut the document may well go on: what is too long is the head.
                if isCut, error.offset >= head.count {
                    throw BundleRejection(
                        .malformed,
                        "the members before \"policy\" must end within the first \(Self.maximumBytes) bytes (the daemon writes them in a few hundred)"
                    )
                }
                throw BundleRejection(.malformed, "not JSON: \(error)")
            }
        }
        var reader = try read { () throws(JSONParseError) in try JSONStreamReader(head, maximumDepth: 64) }
        guard reader.nextIsObject else {
            let value = try read { () throws(JSONParseError) in try reader.readValue() }
            throw BundleRejection(.malformed, "the bundle is \(value.kindName), not a JSON object")
        }
        try read { () throws(JSONParseError) in try reader.beginObject() }
        var seen: [String] = []
        var version: JSONValue?
        var keyId: JSONValue?
        // Stops at `policy`: the chain is read only after the signature verified.
        while let key = try read({ () throws(JSONParseError) in try reader.nextMemberKey() }), key != "policy" {
            // Only the members a bundle has before its policy, once each: `seen` stays short.
            guard Self.members.contains(key) else {
                throw BundleRejection(.malformed, "unknown member \"\(EchoedText.bounded(key))\" in a bundle")
            }
            guard !seen.contains(key) else { throw BundleRejection(.malformed, "duplicate member \"\(key)\"") }
            seen.append(key)
            let value = try read { () throws(JSONParseError) in try reader.readValue() }
            if key.hasSameUTF8(as: "version") { version = value }
            if key.hasSameUTF8(as: "keyId") { keyId = value }
        }
        guard let version else {
            throw BundleRejection(
                .malformed, "\"version\" must come before \"policy\" (the layout decides how the signature is checked)")
        }
        self.isVersionOne = version.integerValue == BundleFormat.unstampedVersion
        self.keyId = keyId?.stringValue
    }

    /// The members a JSON bundle may have before `policy` (any layout: the members are checked
    /// per layout once the whole document is read).
    private static let members = BundleFormat.jsonMembers + BundleFormat.stampMembers

    /// `prefix` without the start of a UTF-8 sequence the cut split (`isCut`), so that the
    /// reader's UTF-8 check sees only what the document holds.
    private static func wholeCharacters(_ prefix: [UInt8], isCut: Bool) -> [UInt8] {
        guard isCut else { return prefix }
        var start = prefix.count
        // Back over continuation bytes (at most three) to the byte that starts the last sequence.
        while start > 0, prefix.count - start < 4, prefix[start - 1] & 0xC0 == 0x80 { start -= 1 }
        guard start > 0 else { return prefix }
        let lead = prefix[start - 1]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        return start - 1 + length > prefix.count ? Array(prefix[..<(start - 1)]) : prefix
    }
}
