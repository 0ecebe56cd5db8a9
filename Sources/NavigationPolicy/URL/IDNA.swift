import CICUIDNA

/// UTS #46 ToASCII for the URL standard's "domain to ASCII", backed by the system ICU.
///
/// ICU is used rather than libidn2 because libidn2 implements IDNA2008 lookup rules, which
/// reject inputs UTS #46 (and browsers / WPT) accept, such as symbols like U+2603 (☃).
public enum IDNA {
    /// The shared ICU processor; ICU documents UIDNA objects as immutable and thread-safe.
    /// Swift initializes globals exactly once (thread-safely) on first use.
    final class Processor: @unchecked Sendable {
        let raw: UnsafeMutableRawPointer?
        init() { raw = navp_idna_open() }
    }
    static let processor = Processor()

    /// UIDNA_ERROR_* bits that correspond to checks the URL standard turns off
    /// (CheckHyphens=false, VerifyDnsLength=false): empty label, label/domain too long,
    /// leading/trailing hyphen, hyphens in positions 3–4.
    static let ignoredErrors: UInt32 = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20

    /// Runs UTS #46 ToASCII (CheckHyphens=false, CheckBidi=true, CheckJoiners=true,
    /// UseSTD3ASCIIRules=false, Transitional_Processing=false, VerifyDnsLength=false) on UTF-8
    /// input. Ill-formed UTF-8 decodes to U+FFFD, which UTS #46 disallows, so it fails too.
    /// - Throws: `URLParseError(.invalidDomain)` on any UTS #46 error.
    public static func toASCII(_ input: [UInt8]) throws(URLParseError) -> [UInt8] {
        guard let handle = processor.raw, input.count < Int(Int32.max / 2) else {
            throw URLParseError(.invalidDomain)
        }
        var capacity = max(64, input.count * 2 + 16)
        for _ in 0..<2 {
            var out = [UInt8](repeating: 0, count: capacity)
            var errors: UInt32 = 0
            let n = input.withUnsafeBufferPointer { src -> Int32 in
                out.withUnsafeMutableBufferPointer { dst -> Int32 in
                    src.withMemoryRebound(to: CChar.self) { s in
                        dst.withMemoryRebound(to: CChar.self) { d in
                            navp_idna_to_ascii(
                                handle, s.baseAddress, Int32(s.count),
                                d.baseAddress, Int32(d.count), &errors)
                        }
                    }
                }
            }
            if n < 0 { throw URLParseError(.invalidDomain) }
            if Int(n) > capacity {
                capacity = Int(n)
                continue
            }
            if errors & ~ignoredErrors != 0 { throw URLParseError(.invalidDomain) }
            out.removeSubrange(Int(n)...)
            return out
        }
        throw URLParseError(.invalidDomain)
    }

    /// Convenience: ToASCII on a String (returns the ASCII domain).
    public static func toASCII(_ domain: String) throws(URLParseError) -> String {
        String(decoding: try toASCII(Array(domain.utf8)), as: UTF8.self)
    }
}
