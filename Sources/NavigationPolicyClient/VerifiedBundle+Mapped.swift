import Foundation
import NavigationPolicy

extension VerifiedBundle {
    /// A bundle whose bytes are owned elsewhere (a mapped file): a compiled bundle is checked and
    /// used in place, as ``init(compiledBundle:signature:trust:now:)`` does; a JSON bundle is
    /// copied out (it is parsed into a chain anyway, and is at most ``maximumBytes``).
    init(inPlace whole: PolicyImageBytes, signature: [UInt8]?, trust: BundleTrust, now: Date = Date())
        throws(BundleRejection)
    {
        if Self.isCompiledBundle(whole.buffer) {
            try self.init(compiledBundle: whole, signature: signature, trust: trust, now: now)
            return
        }
        guard whole.buffer.count <= Self.maximumBytes else {
            throw BundleRejection(.tooLarge, "\(whole.buffer.count) bytes; the limit is \(Self.maximumBytes)")
        }
        try self.init(bytes: Array(whole.buffer), signature: signature, trust: trust, now: now)
    }

    /// The largest bundle file the client maps: a compiled bundle's limit and room for its head.
    static let maximumFileBytes = maximumCompiledBytes + CompiledBundleHead.maximumHeadLength
}
