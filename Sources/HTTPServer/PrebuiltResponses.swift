import CMicroHTTPD

/// Responses built once, when the server is created, as libmicrohttpd responses, and queued
/// again and again: the responder's prepared responses (health probes) and the server's own
/// fixed rejections. Queuing a prebuilt response costs no allocation, no copy of the body and
/// none of the three allocations per header field `MHD_add_response_header` makes.
///
/// `@unchecked Sendable` because `OpaquePointer` is not Sendable: the tables never change
/// after `init`, and queuing one MHD response on several connections at once is safe (MHD
/// counts its references under the response's own mutex; `MHD_RESPMEM_PERSISTENT` responses
/// of the C reference server are used the same way). Each response is destroyed in `deinit`,
/// after the daemon stopped; MHD keeps any response still being sent alive by its count.
final class PrebuiltResponses: @unchecked Sendable {
    private struct Prepared {
        let source: PreparedResponse
        let native: OpaquePointer
    }

    private struct Rejection {
        let problem: ProblemDetails
        let native: OpaquePointer
    }

    private let prepared: [Prepared]
    private let rejections: [Rejection]

    /// Builds `prepared` as they are (sent on connections that stay open) and `problems`
    /// as rejections (with `Connection: close`, since a rejected request closes its
    /// connection). A response MHD refuses is left out and built per request as before.
    init(prepared: [PreparedResponse], problems: [ProblemDetails], typePrefix: String) {
        self.prepared = prepared.compactMap { source in
            ResponseQueueing.persistentResponse(for: source.parts, closeConnection: false).map {
                Prepared(source: source, native: $0)
            }
        }
        self.rejections = problems.compactMap { problem in
            ResponseQueueing.persistentResponse(for: problem.response(typePrefix: typePrefix), closeConnection: true)
                .map { Rejection(problem: problem, native: $0) }
        }
    }

    deinit {
        for entry in prepared { MHD_destroy_response(entry.native) }
        for entry in rejections { MHD_destroy_response(entry.native) }
    }

    /// The prebuilt form of `source` when it was registered (identity, not equality: a
    /// prepared response is one object), else nil.
    func native(for source: PreparedResponse) -> OpaquePointer? {
        for entry in prepared where entry.source === source { return entry.native }
        return nil
    }

    /// The prebuilt rejection equal to `problem`, else nil (limits or details that vary).
    func rejection(for problem: ProblemDetails) -> OpaquePointer? {
        for entry in rejections where entry.problem == problem { return entry.native }
        return nil
    }
}
