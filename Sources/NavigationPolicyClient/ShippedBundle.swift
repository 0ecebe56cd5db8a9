public import Foundation
import NavigationPolicy

extension NavigationPolicyClient {
    /// A bundle compiled into the app, used when there is no good bundle on disk yet.
    ///
    /// Give large bundles as a file (``init(contentsOf:)``): the client maps it read-only and a
    /// compiled bundle decides from the mapping, so a 1,000,000-host blocklist costs the app its
    /// pages, not a copy (docs/integrations/ios.md, "Memory"). ``init(bytes:signature:)`` is for
    /// small policies already in memory.
    public struct ShippedBundle: Sendable {
        private enum Source: Sendable {
            case bytes([UInt8])
            case file(URL)
        }

        private enum SignatureSource: Sendable {
            case given([UInt8]?)
            /// `FILE.sig` beside the bundle file, read when the bundle is loaded.
            case besideFile
        }

        private var source: Source
        private var signatureSource: SignatureSource

        /// The bytes `navpolicyd bundle … --output FILE` wrote. For a bundle given as a file, the
        /// file read now (a copy: the client itself never reads this, it maps the file), empty
        /// when it cannot be read.
        public var bytes: [UInt8] {
            get {
                switch source {
                case .bytes(let bytes): bytes
                case .file(let url): (try? Data(contentsOf: url)).map { [UInt8]($0) } ?? []
                }
            }
            set {
                // The signature beside the old file stays the bundle's signature only if read now.
                if case .besideFile = signatureSource { signatureSource = .given(try? signatureBesideFile()) }
                source = .bytes(newValue)
            }
        }

        /// The detached signature (the decoded contents of `FILE.sig`), when signed. For
        /// ``init(contentsOf:)``, `FILE.sig` read now; nil when it is missing or not base64.
        public var signature: [UInt8]? {
            get {
                switch signatureSource {
                case .given(let signature): signature
                case .besideFile: try? signatureBesideFile()
                }
            }
            set { signatureSource = .given(newValue) }
        }

        /// The bundle's file, for a bundle given as one; nil for bytes.
        public var fileURL: URL? {
            if case .file(let url) = source { url } else { nil }
        }

        /// A bundle in memory: fine for a few thousand rules; a compiled bundle given this way is
        /// copied once more when it is loaded. Use ``init(contentsOf:)`` for large ones.
        public init(bytes: [UInt8], signature: [UInt8]? = nil) {
            self.source = .bytes(bytes)
            self.signatureSource = .given(signature)
        }

        /// The bundle file `navpolicyd bundle --output FILE` wrote, signed by `FILE.sig` beside
        /// it (the base64 line `--sign` writes; no `FILE.sig` means unsigned). Nothing is read
        /// here: the client maps the file when it loads it, and a missing or unreadable file, or
        /// a `FILE.sig` that is not base64, is a ``BundleRejection`` then (in
        /// ``NavigationPolicyClient/startupIssues``, or thrown by ``NavigationPolicyClient/init(strict:)``).
        public init(contentsOf file: URL) {
            self.source = .file(file)
            self.signatureSource = .besideFile
        }

        /// The bundle file and its detached signature (raw bytes, already decoded), when the
        /// signature is kept elsewhere than `FILE.sig`; nil for an unsigned bundle.
        public init(contentsOf file: URL, signature: [UInt8]?) {
            self.source = .file(file)
            self.signatureSource = .given(signature)
        }

        /// Loads the bundle exactly as the client does at launch (`navpolicyd check --bundle`
        /// and `bench --client` call this too): a file is mapped and a compiled bundle checked
        /// and used in place, its pages handed back as the signature check reads them.
        public func verified(trust: BundleTrust, now: Date = Date()) throws(BundleRejection) -> VerifiedBundle {
            let url: URL
            switch source {
            case .bytes(let bytes):
                return try VerifiedBundle(bytes: bytes, signature: signature, trust: trust, now: now)
            case .file(let file):
                url = file
            }
            let signature: [UInt8]?
            switch signatureSource {
            case .given(let given): signature = given
            case .besideFile: signature = try signatureBesideFile()
            }
            let mapped = try Self.map(url)
            return try mapped.checkingWithBoundedResidency { () throws(BundleRejection) in
                try VerifiedBundle(inPlace: mapped.bytes, signature: signature, trust: trust, now: now)
            }
        }

        /// Whether a verified cached bundle of `cachedVersion` wins over this one whatever this
        /// one's signature and image hold: it is a compiled bundle whose head line claims a
        /// `policyVersion` not above `cachedVersion`. Reads the head only (the first pages of the
        /// file), nothing the signature covers is trusted: a false claim of a higher version is
        /// refused by the full check that follows, and a false claim of a lower one only keeps
        /// the cached bundle, which verified (issue 42: a cached launch no longer pays for the
        /// shipped bundle's signature and structure check). False for a JSON bundle, which is
        /// small and checked in full. Throws what the head shows wrong, as
        /// ``verified(trust:now:)`` would.
        func loses(toCachedVersion cachedVersion: Int?) throws(BundleRejection) -> Bool {
            switch source {
            case .bytes(let bytes):
                // Through Result: Array.withUnsafeBytes rethrows untyped errors.
                return try bytes.withUnsafeBytes { buffer in
                    Result { () throws(BundleRejection) in try Self.headLoses(buffer, toCachedVersion: cachedVersion) }
                }.get()
            case .file(let url):
                let mapped = try Self.map(url)
                // The buffer is the mapping's: unmapped when `mapped` goes, so not before the read.
                defer { withExtendedLifetime(mapped) {} }
                return try Self.headLoses(mapped.bytes.buffer, toCachedVersion: cachedVersion)
            }
        }

        private static func headLoses(_ buffer: UnsafeRawBufferPointer, toCachedVersion cachedVersion: Int?)
            throws(BundleRejection) -> Bool
        {
            guard VerifiedBundle.isCompiledBundle(buffer) else { return false }
            // The order of NavigationPolicyClient.newer: a tie goes to the cached bundle.
            return try CompiledBundleHead(buffer).stamp.policyVersion <= (cachedVersion ?? 0)
        }

        /// The bundle file mapped read-only (nothing read yet), or why it cannot be.
        private static func map(_ url: URL) throws(BundleRejection) -> MappedBundleFile {
            do {
                return try MappedBundleFile.map(url, maxBytes: VerifiedBundle.maximumFileBytes)
            } catch {
                throw BundleRejection(
                    error.isTooLarge ? .tooLarge : .unreadable, "\(url.lastPathComponent): \(error.reason)")
            }
        }

        /// The signature in `FILE.sig`; nil when there is none (an unsigned bundle).
        private func signatureBesideFile() throws(BundleRejection) -> [UInt8]? {
            guard let file = fileURL else { return nil }
            let signatureURL = file.appendingPathExtension(BundleFormat.signatureFileExtension)
            let text: Data
            do {
                text = try Data(contentsOf: signatureURL)
            } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
                return nil
            } catch {
                throw BundleRejection(.badSignature, "\(signatureURL.lastPathComponent): cannot be read")
            }
            // One base64 line (an Ed25519 signature is 88 characters): anything far longer is not one.
            guard text.count <= 4096,
                let decoded = SignatureText.decode(bytes: [UInt8](text))
            else {
                throw BundleRejection(.badSignature, "\(signatureURL.lastPathComponent) is not a base64 signature")
            }
            return decoded
        }
    }
}

extension MappedBundleFile.Failure {
    fileprivate var isTooLarge: Bool {
        if case .tooLarge = self { true } else { false }
    }
}
