import NavpolicydCommands
import Testing

/// Issue 28, item 6: `bundle verify|inspect` and `check|test --bundle` refuse command lines that
/// mix a bundle with a config, or options that would be ignored, before anything is read.
@Suite("bundle command lines")
struct BundleArgumentsTests {
    static let key = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

    @Test(
        "usage and value errors",
        arguments: [
            (["bundle", "verify"], CommandError.usage("expected exactly one FILE after verify")),
            (["bundle", "frobnicate", "b.json"], .usage("unknown action frobnicate; expected verify FILE or inspect FILE")),
            (
                ["bundle", "verify", "b.json", "--config", "c.json"],
                .usage("'bundle verify FILE' reads a bundle; the options that build one do not apply")
            ),
            (
                ["bundle", "inspect", "b.json", "--bundle-key", key],
                .usage("'bundle inspect' checks no signature; use 'bundle verify FILE --bundle-key …'")
            ),
            (["bundle", "verify", "b.json", "--format", "json"], .usage("--format is for 'bundle inspect'")),
            (
                ["bundle", "--config", "c.json", "--bundle-key", key],
                .usage("--bundle-key and --bundle-signature are for 'bundle verify FILE'")
            ),
            (
                ["bundle", "--config", "c.json", "--key-id", "a b", "--sign", "k.pem"],
                .invalidValue("--key-id: a key id has only the characters A-Z a-z 0-9 . _ -")
            ),
            (["bundle", "--config", "c.json", "--key-id", "k1"], .usage("--key-id names the signing key; add --sign KEY")),
            (
                ["check", "--bundle", "b.json", "--config", "c.json", "u"],
                .usage("--bundle FILE and --config FILE are two policies; give one")
            ),
            (["check", "--bundle-key", key, "u"], .usage("--bundle-key and --bundle-signature go with --bundle FILE")),
            (
                ["test", "--bundle", "b.json", "--bundle-key", "k1:\(key)", "--bundle-key", key, "c.json"],
                .usage("--bundle-key: give every key as ID:KEY, or one key without an id")
            ),
            (
                ["test", "--bundle", "b.json", "--bundle-key", "k1:\(key)", "--bundle-key", "k1:\(key)", "c.json"],
                .invalidValue("--bundle-key: key id k1 given twice")
            ),
        ])
    func errors(arguments: [String], expected: CommandError) throws {
        guard case .failure(let failure) = CommandLineTool.parse(arguments) else {
            Issue.record("\(arguments) must not parse")
            return
        }
        #expect(failure.error == expected)
    }

    @Test func aBadKeyIsAValueError() throws {
        guard case .failure(let failure) = CommandLineTool.parse(["check", "--bundle", "b.json", "--bundle-key", "k1:xyz", "u"])
        else {
            Issue.record("a key that is not base64 must not parse")
            return
        }
        guard case .invalidValue(let message) = failure.error else {
            Issue.record("\(failure.error)")
            return
        }
        #expect(message.hasPrefix("--bundle-key k1:xyz: "))
    }
}
