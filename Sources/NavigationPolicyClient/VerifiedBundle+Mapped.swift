import Foundation
import NavigationPolicy

extension VerifiedBundle {
    /// A bundle whose bytes are owned elsewhere (a mapped file): a compiled bundle is checked and
    /// used in place, as ``init(compiledBundle:signature:trust:now:)`` does; a JSON bundle's head
    /// is checked in place, then the bundle is copied out (it is parsed into a chain anyway, and
    /// is at most ``maximumBytes``) and its signature verified over the copy, the bytes it keeps.
    init(inPlace whole: PolicyImageBytes, signature: [UInt8]?, trust: BundleTrust, now: Date = Date())
        throws(BundleRejection)
    {
        if Self.isCompiledBundle(whole.buffer) {
            try self.init(compiledBundle: whole, signature: signature, trust: trust, now: now)
            return
        }
        // An unsigned or untrusted file is refused from its first page, before any copy.
        let head = try Self.checkedHead(ofJSON: whole.buffer, signature: signature, trust: trust)
        try self.init(jsonBundle: Array(whole.buffer), head: head, signature: signature, trust: trust, now: now)
    }

    /// The largest bundle file the client maps: a compiled bundle's limit and room for its head.
    static let maximumFileBytes = maximumCompiledBytes + CompiledBundleHead.maximumHeadLength
}
