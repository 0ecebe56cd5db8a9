import NavigationPolicy
import PolicyService

/// The compiled policy image loader on arbitrary bytes: a refusal is an error with a message,
/// never a trap or a read out of range (ASan). The checksum is checked on every other input
/// only: with it, nearly every mutation stops at the checksum and the structure checks behind
/// it (section table, table offsets, key order) would never be reached. An image that loads
/// decides a few requests, explained, so its tables are read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPolicyImage(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    let image = PolicyImageBytes(copying: bytes)
    let checksum = count % 2 == 0 ? PolicyImageFile.checksum : nil
    do {
        let loaded = try PolicyImage.load(image, compiler: ServerSettings.compiler, checksum: checksum)
        for url in ["https://h1.block.test/a/b", "https://x.ads.test/", "http://127.0.0.1/", "https://ok.test/section1/private"] {
            _ = try? loaded.policy.decide(NavigationRequest(url: url), explain: true)
            _ = try? loaded.policy.decide(NavigationRequest(url: url))
        }
    } catch {
        if error.reason.isEmpty { fatalError("an image refusal without a message") }
    }
    return 0
}
