import HTTPServer
import JSONSupport
import NavigationPolicy

/// The body of the proxy's 403 `navigation-cancelled` problem: byte for byte what
/// ``ProblemRenderer/cancelled(_:)`` writes, but from prebuilt fixed parts into the worker
/// thread's reusable buffer (``ThreadResponseBuffer``).
///
/// Every cancel the proxy answers with a problem writes this body; building the `detail`
/// String, a ``ProblemDetails`` value and a fresh 512-byte buffer for each was a third of the
/// proxy's own work on the cancel path. Only the handler name and the decision members vary.
enum CancelledProblemBody {
    /// The body for `decision`, or nil when the handler name needs JSON escaping inside the
    /// `detail` text (a quote, a backslash, a control character), or when the handler's
    /// `response.status` is not the 403 prebuilt here: the general renderer writes those, so
    /// the escaping rules and the status live in one place.
    static func bytes(for decision: Decision) -> [UInt8]? {
        if let status = decision.response?.status, status != 403 { return nil }
        if let handler = decision.handler, !handler.utf8.allSatisfy(isLiteralInJSONString) { return nil }
        return ThreadResponseBuffer.json(reservingCapacity: 512) { writer in
            if let handler = decision.handler {
                writeFixed(byHandlerOpening, to: &writer)
                writer.writeRaw(handler)
                writeFixed(byHandlerClosing, to: &writer)
            } else {
                writeFixed(byDefaultDecision, to: &writer)
            }
            decision.writeMembers(to: &writer)
            writer.writeRaw("}}")
        }
    }

    /// Whether `byte` stands for itself inside a JSON string (``JSONWriter`` escapes the rest).
    private static func isLiteralInJSONString(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    private static func writeFixed(_ bytes: [UInt8], to writer: inout JSONWriter) {
        bytes.withUnsafeBufferPointer { writer.writeRaw(bytes: $0) }
    }

    /// Everything before the detail's closing words: the members ``ProblemDetails`` writes
    /// first, in its order, with the renderer's type prefix.
    private static let membersBeforeDetail =
        #"{"type":""# + ProblemRenderer.typePrefix + #"navigation-cancelled","title":"Navigation cancelled","status":403,"#
        + #""detail":"The navigation policy cancelled this navigation ("#

    /// Up to the handler name: `… (the \"`.
    private static let byHandlerOpening = Array((membersBeforeDetail + #"the \""#).utf8)
    /// From the handler name to the decision members: `\" handler).","decision":{`.
    private static let byHandlerClosing = Array(#"\" handler).","decision":{"#.utf8)
    /// Everything before the decision members when the default decision cancelled.
    private static let byDefaultDecision = Array(
        (membersBeforeDetail + #"the default decision).","decision":{"#).utf8)
}
