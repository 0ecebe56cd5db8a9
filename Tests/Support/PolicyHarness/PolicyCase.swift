public import JSONSupport
public import NavigationPolicy

/// A generated policy as every engine starts from it: the JSON document, its bytes, and the
/// chain compiled with every entry kept (what the analysis reads).
public struct PolicyCase: Sendable {
    public let json: JSONObject
    public let bytes: [UInt8]
    public let compiled: CompiledPolicy

    public init(_ json: JSONObject) throws(ConfigError) {
        self.json = json
        self.bytes = JSONValue.object(json).serializedBytes
        self.compiled = try PolicyCompiler().compile(bytes)
    }
}

/// A stand-in digest (the core links no crypto): 32 bytes of FNV-1a over four seeds, which any
/// changed byte changes. Images the harness builds are checksummed and checked with it.
public let harnessDigest: PolicyImage.Digest = { bytes in
    var digest: [UInt8] = []
    for seed: UInt64 in [0xcbf2_9ce4_8422_2325, 0x1234_5678_9abc_def1, 0x0f0f_f0f0_5a5a_a5a5, 0x7777_3333_1111_9999] {
        var hash = seed
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for shift in stride(from: 0, to: 64, by: 8) { digest.append(UInt8(truncatingIfNeeded: hash >> UInt64(shift))) }
    }
    return digest
}

/// Lists of this many entries become sorted tables in the JSON-loaded and image engines: low, so
/// generated lists of a few dozen exercise the table lookups.
public let harnessTableThreshold = 8
