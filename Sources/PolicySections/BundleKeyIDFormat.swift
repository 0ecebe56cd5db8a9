/// The form of a key id, the signed `keyId` naming the key a policy bundle is signed with:
/// checked by the daemon's `server.bundle.keyId`, by `navpolicyd bundle --key-id` (through
/// BundleSigning's `BundleKeyID`) and by any core-only build, with one rule.
public enum BundleKeyIDFormat {
    /// Why `id` is not a key id, or nil when it is one: 1 to 64 characters of `A-Z a-z 0-9 . _ -`,
    /// so it is safe in a log line, a file name and a Swift dictionary literal alike.
    public static func problem(_ id: String) -> String? {
        guard (1...64).contains(id.utf8.count) else { return "a key id is 1 to 64 characters" }
        let allowed = id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return allowed ? nil : "a key id has only the characters A-Z a-z 0-9 . _ -"
    }
}
