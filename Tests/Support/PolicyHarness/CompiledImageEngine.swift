import NavigationPolicy

extension HarnessEngine {
    /// The compiled image (``PolicyImage``): written, checked and loaded, its tables read in place.
    public static let compiledImage = HarnessEngine(name: "compiled image") { policy in
        let bytes = try PolicyImage.compile(
            config: policy.bytes, compiler: PolicyCompiler(), sha256: harnessDigest, checksum: harnessDigest,
            tableThreshold: harnessTableThreshold)
        let chain = try PolicyImage.load(PolicyImageBytes(copying: bytes), compiler: PolicyCompiler(), checksum: harnessDigest)
            .policy
        return { request in try? chain.decide(request) }
    }
}
