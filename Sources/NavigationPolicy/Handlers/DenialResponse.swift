import JSONSupport
import PolicyPatterns

/// How a cancelling handler's cancel is answered over HTTP: the handler's `response` object
/// (docs/configuration.md, "Shaping a denial").
///
/// The engine carries it on the ``Decision`` untouched; the front ends that answer HTTP (ext_authz
/// HTTP and gRPC, `/v1/authz`, the proxies) read it. It never changes a verdict, an action or a
/// location, so what a policy decides is the same with or without it; the analysis compares it
/// as part of a handler's outcome, as two handlers answering differently are not equivalent.
///
/// A class: a decision made without one carries a nil reference, so the common decision grows
/// by one word and copies no arrays.
public final class DenialResponse: Sendable, Equatable {
    /// The HTTP status of the denial; nil keeps the default (403, or 302 with a location).
    public let status: Int?
    /// Extra response fields, names lower-cased, in the order written.
    public let headers: [Field]
    /// Request fields Envoy removes before forwarding upstream when this cancel is not enforced
    /// (`extAuthz.dryRun`), lower-cased.
    public let removeRequestHeaders: [String]

    /// One response field.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    /// The statuses a denial may carry: each says "not for you" without a redirect or a body
    /// the client must interpret otherwise.
    public static let statuses = [401, 403, 404, 410, 451]
    /// The config keys of a `response` object.
    public static let keys = ["status", "headers", "removeRequestHeaders"]
    /// At most this many `headers`, and as many `removeRequestHeaders`.
    public static let maximumFields = 16
    /// The longest field name.
    public static let maximumNameBytes = 64
    /// The longest field value.
    public static let maximumValueBytes = 1024
    /// All names and values of `headers` together.
    public static let maximumHeaderBytes = 4096

    /// Fields a handler may neither add nor remove: framing and connection fields (RFC 9110
    /// §7.6.1, the proxy's ``HopByHop`` list and `Content-Length`), the fields the front end
    /// writes itself (the location, the body's type, `cache-control: no-store`, `host`).
    public static let refusedNames = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "content-length", "content-encoding", "content-type", "location",
        "cache-control", "host",
    ]
    /// Prefixes of refused names: navpolicyd's decision fields, and Envoy's own control fields
    /// (`x-envoy-auth-headers-to-remove` would let a handler remove anything).
    public static let refusedPrefixes = ["x-navigation-", "x-envoy-"]
    /// Fields a handler may not set in `headers` (it may still remove request fields so named):
    /// the ones every HTTP front end writes itself (`date`, `server`; a second copy would be two
    /// values for one field), and gRPC's status and framing fields, which a denial sent over
    /// the gRPC ext_authz listener must not contradict (a handler's `grpc-status: 0` beside
    /// `PERMISSION_DENIED`). Attack round 8, F9.
    public static let refusedResponseNames = ["date", "server"]
    /// Prefixes of ``refusedResponseNames``: every `grpc-*` field.
    public static let refusedResponsePrefixes = ["grpc-"]

    init(status: Int?, headers: [Field], removeRequestHeaders: [String]) {
        self.status = status
        self.headers = headers
        self.removeRequestHeaders = removeRequestHeaders
    }

    public static func == (lhs: DenialResponse, rhs: DenialResponse) -> Bool {
        lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.removeRequestHeaders == rhs.removeRequestHeaders
    }

    /// Decodes a handler's `response` object, reporting every problem at its pointer.
    ///
    /// - Parameter hasLocation: whether the handler's cancels carry a location: they answer 302
    ///   to it, so a `status` there is refused rather than silently overruled.
    public static func decode(
        _ object: ConfigObject, hasLocation: Bool, diagnostics: inout ConfigDiagnostics
    ) -> DenialResponse? {
        let before = diagnostics.count
        object.checkKeys(allowed: keys, diagnostics: &diagnostics)
        if object.object.members.isEmpty {
            diagnostics.report(object.pointer, "empty response: give status, headers or removeRequestHeaders, or omit it")
        }
        let status = object.integer("status", in: 100...599, diagnostics: &diagnostics)
        if let status, !statuses.contains(status) {
            diagnostics.report(
                object.pointer.appending("status"), "\(status): a denial's status is one of 401, 403, 404, 410, 451")
        }
        if status != nil, hasLocation {
            diagnostics.report(
                object.pointer.appending("status"),
                "this handler's cancels carry a location and are answered 302 to it: a status applies to cancels "
                    + "without one (headers and removeRequestHeaders still apply)")
        }
        let headers = decodeHeaders(object, diagnostics: &diagnostics)
        let removed = decodeRemoved(object, diagnostics: &diagnostics)
        guard diagnostics.count == before else { return nil }
        return DenialResponse(status: status, headers: headers, removeRequestHeaders: removed)
    }

    private static func decodeHeaders(_ object: ConfigObject, diagnostics: inout ConfigDiagnostics) -> [Field] {
        guard let section = object.object("headers", diagnostics: &diagnostics) else { return [] }
        let members = section.object.members
        if members.isEmpty { diagnostics.report(section.pointer, "empty headers; omit the field for none") }
        if members.count > maximumFields {
            diagnostics.report(section.pointer, "\(members.count) fields: at most \(maximumFields)")
            return []
        }
        var fields: [Field] = []
        var bytes = 0
        for member in members {
            let pointer = section.pointer.appending(member.key)
            guard let name = checkedName(member.key, at: pointer, diagnostics: &diagnostics) else { continue }
            if refusedResponseNames.contains(name) || refusedResponsePrefixes.contains(where: { name.hasPrefix($0) }) {
                diagnostics.report(
                    pointer,
                    "\"\(name)\" cannot be set by a handler: date and server are written by the front end, "
                        + "grpc-* carry the gRPC listener's own status")
                continue
            }
            if fields.contains(where: { $0.name == name }) {
                diagnostics.report(pointer, "duplicate field \"\(name)\" (names are compared ignoring case)")
                continue
            }
            guard case .string(let value) = member.value else {
                diagnostics.report(pointer, "expected a string, got \(member.value.kindName)")
                continue
            }
            if let problem = valueProblem(value) {
                diagnostics.report(pointer, problem)
                continue
            }
            bytes += name.utf8.count + value.utf8.count
            fields.append(Field(name: name, value: value))
        }
        if bytes > maximumHeaderBytes {
            diagnostics.report(section.pointer, "\(bytes) bytes of names and values: at most \(maximumHeaderBytes)")
        }
        return fields
    }

    private static func decodeRemoved(_ object: ConfigObject, diagnostics: inout ConfigDiagnostics) -> [String] {
        guard let list = object.stringList("removeRequestHeaders", diagnostics: &diagnostics) else { return [] }
        guard list.underestimatedCount <= maximumFields else {
            diagnostics.report(
                object.pointer.appending("removeRequestHeaders"),
                "\(list.underestimatedCount) names: at most \(maximumFields)")
            return []
        }
        var names: [String] = []
        for (index, text) in list {
            let pointer = object.pointer(to: "removeRequestHeaders", index)
            guard let name = checkedName(text, at: pointer, diagnostics: &diagnostics) else { continue }
            guard !names.contains(name) else {
                diagnostics.report(pointer, "duplicate name \"\(name)\" (names are compared ignoring case)")
                continue
            }
            names.append(name)
        }
        return names
    }

    /// The lower-cased name, or nil after reporting why it cannot be one.
    private static func checkedName(_ text: String, at pointer: JSONPointer, diagnostics: inout ConfigDiagnostics)
        -> String?
    {
        guard (1...maximumNameBytes).contains(text.utf8.count), text.utf8.allSatisfy(HTTPToken.isTokenByte) else {
            diagnostics.report(
                pointer,
                "\"\(EchoedText.bounded(text))\": a field name is 1 to \(maximumNameBytes) token characters (RFC 9110: "
                    + "letters, digits and !#$%&'*+-.^_`|~)")
            return nil
        }
        let name = asciiLowercased(text)
        if refusedNames.contains(name) || refusedPrefixes.contains(where: { name.hasPrefix($0) }) {
            diagnostics.report(
                pointer,
                "\"\(name)\" cannot be set or removed by a handler: framing and connection fields, the fields the "
                    + "front end writes (location, content-type, cache-control, host) and x-navigation-*/x-envoy-* are "
                    + "navpolicyd's and Envoy's own")
            return nil
        }
        return name
    }

    /// Why `value` cannot be a field value, or nil: no control character but HTAB, no DEL
    /// (CR, LF and NUL split or cut a header), no leading or trailing blank, bounded.
    private static func valueProblem(_ value: String) -> String? {
        guard value.utf8.count <= maximumValueBytes else {
            return "\(value.utf8.count) bytes: a value is at most \(maximumValueBytes)"
        }
        guard !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
            return "a field value cannot contain control characters (CR, LF, NUL, …) or DEL"
        }
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        if let first = value.utf8.first, blank(first) { return "a field value cannot start with a space or tab" }
        if let last = value.utf8.last, blank(last) { return "a field value cannot end with a space or tab" }
        return nil
    }
}
