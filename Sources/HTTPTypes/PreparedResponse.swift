/// A response whose bytes never change (a health probe, a fixed error), which a server may
/// build once in its transport's own form and send again and again without rebuilding it.
///
/// Return ``response`` from a responder: the value it gives carries this object, and the
/// server sends its prebuilt copy when it has one (see `HTTPResponder.preparedResponses`).
/// Changing the status, headers or body of that value drops the link, so a modified copy is
/// always sent as modified; a server without a prebuilt copy sends the value as usual.
public final class PreparedResponse: Sendable {
    /// The response's parts (without the link back to this object, so there is no cycle).
    public let parts: HTTPResponse

    /// Prepares `response`; a streamed body cannot be prepared and is sent as usual.
    public init(_ response: HTTPResponse) {
        var parts = response
        parts.prepared = nil
        self.parts = parts
    }

    /// The response to return from a responder: the parts, linked to this object.
    public var response: HTTPResponse {
        var linked = parts
        linked.prepared = self
        return linked
    }
}
