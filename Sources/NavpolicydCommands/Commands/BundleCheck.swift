import Foundation
import JSONSupport
import NavigationPolicy
import NavigationPolicyClient

/// `navpolicyd bundle verify FILE` and `navpolicyd bundle inspect FILE`.
enum BundleCheck {
    /// Checks the bundle as the app's client does; 0 and a one-line summary, or 2 and why.
    static func verify(_ input: BundleInput, output: Output) -> Int32 {
        let bundle: VerifiedBundle
        do {
            bundle = try input.load()
        } catch {
            output.err("navpolicyd bundle verify: \(error.message)")
            return ExitCode.usage
        }
        // A signed bundle checked without its key would print OK for any tampered copy (outside
        // attack): `verify` is the step CI runs, so a forgotten key is an error, not a note.
        let signature = (try? input.read())?.signature
        if input.keys.isEmpty, bundle.stamp?.keyId != nil || signature != nil {
            output.err(
                "navpolicyd bundle verify: \(input.path) is signed"
                    + (bundle.stamp?.keyId.map { " (key id \($0))" } ?? "")
                    + " but no --bundle-key was given, so its signature cannot be checked: pass --bundle-key [ID:]KEY")
            return ExitCode.usage
        }
        input.noteUncheckedSignature("bundle verify", to: output)
        var summary = "\(input.path): OK, revision \(bundle.revision)"
        if let stamp = bundle.stamp {
            summary += ", policyVersion \(stamp.policyVersion), expires \(timestamp(stamp.expiresAt))"
            if let keyId = stamp.keyId { summary += ", key \(keyId)" }
        }
        output.out(TerminalText.escaped(summary))
        return ExitCode.success
    }

    /// The head of a compiled bundle (layout 3), nil for a JSON bundle.
    private static func compiledHead(_ bytes: [UInt8], path: String) throws(BundleInput.Failure) -> CompiledBundleHead? {
        guard bytes.first == UInt8(ascii: "{"), let newline = bytes.firstIndex(of: 0x0A), newline + 1 < bytes.count,
            PolicyImage.hasMagic(bytes[(newline + 1)...])
        else { return nil }
        do {
            return try bytes.withUnsafeBytes { buffer throws(BundleRejection) in try CompiledBundleHead(buffer) }
        } catch {
            throw BundleInput.Failure(message: "\(path): not a policy bundle: \(error)")
        }
    }

    private static func inspectCompiled(
        _ head: CompiledBundleHead, bytes: [UInt8], path: String, signed: Bool, format: OutputFormat, output: Output
    ) -> Int32 {
        let now = Int(Date().timeIntervalSince1970)
        let fields: JSONObject = [
            "version": .number(Double(BundleFormat.compiledVersion)), "revision": .string(head.revision),
            "policyVersion": .number(Double(head.stamp.policyVersion)),
            "issuedAt": .number(Double(head.stamp.issuedAt)), "expiresAt": .number(Double(head.stamp.expiresAt)),
            "expired": .bool(head.stamp.isExpired(atUnixSeconds: now)),
            "keyId": head.stamp.keyId.map(JSONValue.string) ?? .null, "signed": .bool(signed),
            "compiledPolicyBytes": .number(Double(head.imageLength)),
        ]
        switch format {
        case .json: output.out(fields.serializedJSON)
        case .text:
            for member in fields.members {
                output.out("\(member.key): " + TerminalText.escaped(member.value.stringValue ?? member.value.serialized))
            }
            output.out("note: a compiled bundle carries the policy as an image (navpolicyd compile); verify loads it")
        }
        return policyRefusal(path: path, output: output) { () throws(BundleRejection) in
            _ = try VerifiedBundle.policy(inCompiled: PolicyImageBytes(copying: bytes), head: head)
        }
    }

    /// Shows the bundle's members (no signature check); 2 when it is not a bundle, or when its
    /// policy does not compile (after the members: they help to tell which bundle it is). Text
    /// from the bundle is escaped for the terminal (``TerminalText``).
    static func inspect(_ input: BundleInput, format: OutputFormat, output: Output) -> Int32 {
        let document: BundleDocument
        let signature: [UInt8]?
        do throws(BundleInput.Failure) {
            let read = try input.read()
            signature = read.signature
            if let compiled = try compiledHead(read.bytes, path: input.path) {
                return inspectCompiled(
                    compiled, bytes: read.bytes, path: input.path, signed: signature != nil, format: format, output: output)
            }
            do {
                document = try BundleDocument(bytes: read.bytes)
            } catch {
                throw BundleInput.Failure(message: "\(input.path): not a policy bundle: \(error)")
            }
        } catch {
            output.err("navpolicyd bundle inspect: \(error.message)")
            return ExitCode.usage
        }
        let now = Int(Date().timeIntervalSince1970)
        var fields: JSONObject = [
            "version": .number(Double(document.layoutVersion)), "revision": .string(document.revision),
        ]
        if let stamp = document.stamp {
            fields.append("policyVersion", .number(Double(stamp.policyVersion)))
            fields.append("issuedAt", .number(Double(stamp.issuedAt)))
            fields.append("expiresAt", .number(Double(stamp.expiresAt)))
            fields.append("expired", .bool(stamp.isExpired(atUnixSeconds: now)))
            fields.append("keyId", stamp.keyId.map(JSONValue.string) ?? .null)
        }
        fields.append("signed", .bool(signature != nil))
        fields.append("handlers", .number(Double(document.handlerCount)))
        fields.append("defaultDecision", document.defaultDecision.map(JSONValue.string) ?? .null)
        switch format {
        case .json:
            output.out(fields.serializedJSON)
        case .text:
            for member in fields.members {
                var text = member.value.stringValue ?? member.value.serialized
                if member.key == "issuedAt" || member.key == "expiresAt", let seconds = member.value.integerValue {
                    text += " (\(timestamp(seconds)))"
                }
                output.out("\(member.key): " + TerminalText.escaped(text))
            }
            if document.stamp == nil {
                output.out("note: a version-1 bundle has no signed version or expiry; clients refuse it by default")
            }
        }
        return policyRefusal(path: input.path, output: output) { () throws(BundleRejection) in
            _ = try document.compiledPolicy()
        }
    }

    /// Exit 0 when `compile` (the client's own loading of the policy) succeeds; else the reason
    /// on stderr and 2: invalid input (docs/cli.md), a bundle an app refuses.
    private static func policyRefusal(
        path: String, output: Output, _ compile: () throws(BundleRejection) -> Void
    ) -> Int32 {
        do {
            try compile()
        } catch {
            output.err(
                "navpolicyd bundle inspect: "
                    + TerminalText.escaped("\(path): its policy does not compile, so an app refuses it: \(error)"))
            return ExitCode.usage
        }
        return ExitCode.success
    }

    /// Unix seconds as an RFC 3339 UTC time, for people: the client's spelling, so the OK line
    /// and its `expired` refusals print the same times.
    static func timestamp(_ seconds: Int) -> String { BundleStamp.iso8601(unixSeconds: seconds) }
}
