internal import JSONSupport
public import NavigationPolicy

/// The head line of a compiled bundle (layout version 3, docs/bundles.md "Compiled bundles"):
/// `{"format":"navpolicy-bundle","version":3,"revision":…,"policyVersion":…,"issuedAt":…,
/// "expiresAt":…,"keyId"?:…,"compiledPolicy":{"length":N}}`, a newline, then N image bytes.
public struct CompiledBundleHead: Sendable {
    public let revision: String
    public let stamp: BundleStamp
    /// Where the image starts in the bundle, and its length.
    public let imageOffset: Int
    public let imageLength: Int

    /// Compiled bundles beyond this are refused: the image of 1,000,000 hosts and 100,000 path
    /// prefixes is 27.4 MiB (`bench/client-memory.sh`, 2026-12-05), so this leaves room for
    /// lists many times that size while bounding what a download may make the client map.
    public static let maximumBundleBytes = 512 << 20

    /// The head is within this many bytes; a longer first line is not a compiled bundle.
    static let maximumHeadLength = 64 * 1024

    /// Whether `bytes` look like a compiled bundle (a first line that is a version-3 head): the
    /// choice between this reader and the JSON one, made before anything is trusted.
    static func isCompiled(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let newline = bytes.prefix(maximumHeadLength).firstIndex(of: 0x0A),
            let head = try? JSONParser(maximumDepth: 4).parse(UnsafeRawBufferPointer(rebasing: bytes[..<newline])),
            let root = head.objectValue
        else { return false }
        return root["version"]?.integerValue == BundleFormat.compiledVersion
    }

    /// Reads and checks the head of `bytes`; the signature is checked by the caller over all of `bytes`.
    public init(_ bytes: UnsafeRawBufferPointer) throws(BundleRejection) {
        try self.init(prefix: bytes, bundleCount: bytes.count)
    }

    /// Reads and checks the head from the first bytes of a compiled bundle of `bundleCount`
    /// bytes: `prefix` holds at least `min(bundleCount, maximumHeadLength)` of them. The same
    /// head, and the same refusal, as ``init(_:)`` over the whole bundle: the WebAssembly build
    /// checks a bundle from a copy of its head alone (attack round 10, F5).
    init(prefix: UnsafeRawBufferPointer, bundleCount: Int) throws(BundleRejection) {
        let bytes = UnsafeRawBufferPointer(rebasing: prefix.prefix(Self.maximumHeadLength))
        guard let newline = bytes.firstIndex(of: 0x0A) else {
            throw BundleRejection(.malformed, "a compiled bundle starts with a JSON line under 64 KiB")
        }
        let value: JSONValue
        do {
            value = try JSONParser(maximumDepth: 4).parse(UnsafeRawBufferPointer(rebasing: bytes[..<newline]))
        } catch {
            throw BundleRejection(.malformed, "the compiled bundle's head is not JSON: \(error)")
        }
        guard let root = value.objectValue, root["format"]?.stringValue == BundleFormat.name,
            root["version"]?.integerValue == BundleFormat.compiledVersion
        else {
            throw BundleRejection(
                .malformed, "the head must be a \(BundleFormat.name) of version \(BundleFormat.compiledVersion)")
        }
        if let unknown = root.keys.first(where: { !BundleFormat.compiledHeadMembers.contains($0) }) {
            throw BundleRejection(.malformed, "unknown member \"\(unknown)\" in a version-3 bundle")
        }
        guard let revision = root["revision"]?.stringValue, PolicyRevision.isWellFormed(revision) else {
            throw BundleRejection(.malformed, BundleDocument.revisionRule)
        }
        let imageOffset = newline + 1
        guard let compiled = root["compiledPolicy"]?.objectValue, compiled.keys == ["length"],
            let length = compiled["length"]?.integerValue, length == bundleCount - imageOffset
        else {
            throw BundleRejection(
                .malformed,
                "\"compiledPolicy\" must be {\"length\":N} with N the \(bundleCount - imageOffset) bytes after the head")
        }
        self.revision = revision
        self.stamp = try BundleDocument.stamp(root)
        self.imageOffset = imageOffset
        self.imageLength = length
    }

    /// The image inside `whole` (the bundle this head was read from), checked (every offset,
    /// length and order, and with `checksum` the image checksum too) and loaded in place;
    /// `invalid-policy` when it is refused. The policy's tables read `whole`, which they keep.
    public func policy(in whole: PolicyImageBytes, checksum: PolicyImage.Digest?) throws(BundleRejection)
        -> CompiledPolicy
    {
        let window = UnsafeRawBufferPointer(rebasing: whole.buffer[imageOffset...])
        // The window borrows `whole`: its release does nothing, `whole` (kept by the tables) frees it.
        let image = PolicyImageBytes(buffer: window) { [whole] _ in _ = whole }
        do {
            return try PolicyImage.load(image, compiler: PolicyCompiler(), checksum: checksum).policy
        } catch {
            throw BundleRejection(.invalidPolicy, "compiled policy image refused: \(error.reason)")
        }
    }
}
