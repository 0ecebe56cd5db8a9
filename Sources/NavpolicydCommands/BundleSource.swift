import NavigationPolicy
import PolicyService

/// What `navpolicyd bundle` builds a bundle from: the config's bytes, the image a compiled
/// bundle carries, and the `server.bundle` settings, each made once, by the cheapest path that
/// still checks the config as `validate` does.
///
/// `bundle --compiled` from JSON used to compile the whole chain in memory (every entry of a
/// 1,000,000-host list as a `MatchEntry`) only to read `server.bundle`, then compile the image:
/// 5.1 s of CPU and 555 MB, against 0.39 s and 191 MB from an image. Compiling straight to the
/// image checks the config (the same issues), and the image, loaded in place, gives the
/// settings: 0.86 s and 172 MB (docs/performance.md, issue 42).
struct BundleSource {
    var bytes: [UInt8]
    /// The image a compiled bundle carries: the config itself when it is one, else compiled
    /// from it when `--compiled` is given; nil for a JSON bundle.
    var image: [UInt8]?
    var settings: BundleSettings

    static func read(_ path: String, maxBytes: Int, compiled: Bool) throws(ConfigLoader.LoadError) -> BundleSource {
        let bytes = try ConfigLoader.read(path, maxBytes: maxBytes)
        if PolicyImage.hasMagic(bytes) {
            return BundleSource(bytes: bytes, image: bytes, settings: try settings(ofImage: bytes, path: path))
        }
        guard compiled else {
            // The deciding compiler reports the same issues and stores large lists as tables.
            let policy: CompiledPolicy
            do {
                policy = try ServerSettings.decidingCompiler.compile(bytes)
            } catch {
                throw .invalid(path: path, error)
            }
            try ConfigLoader.refusePulledChain(policy, path: path)
            return BundleSource(bytes: bytes, image: nil, settings: ServerSettings.from(policy).bundle)
        }
        let image: [UInt8]
        do {
            image = try PolicyImageFile.compile(config: bytes)
        } catch {
            throw .invalid(path: path, error)
        }
        return BundleSource(bytes: bytes, image: image, settings: try settings(ofImage: image, path: path))
    }

    /// The `server.bundle` settings of an image, loaded over its bytes where they are (no copy:
    /// the policy is dropped before `image` can go).
    private static func settings(ofImage image: [UInt8], path: String) throws(ConfigLoader.LoadError) -> BundleSettings {
        let loaded = image.withUnsafeBytes { buffer -> Result<BundleSettings, PolicyImageError> in
            let borrowed = PolicyImageBytes(buffer: buffer) { _ in }
            return Result { () throws(PolicyImageError) in ServerSettings.from(try PolicyImageFile.load(borrowed).policy).bundle }
        }
        switch loaded {
        case .success(let settings): return settings
        case .failure(let error): throw .invalidImage(path: path, error)
        }
    }
}
