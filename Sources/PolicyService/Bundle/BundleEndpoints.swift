import HTTPServer
import NavigationPolicy

/// `GET|HEAD /v1/policy/bundle`: the policy bundle apps decide with (docs/bundles.md).
///
/// On the API listener and outside the admin token: apps fetch it, and it carries nothing
/// from the `server`, `intake` or `proxy` sections. Every response comes from the snapshot's
/// prebuilt bundle; a request only compares entity tags.
struct BundleEndpoints: Sendable {
    let store: PolicyStore

    /// The response field that carries the detached signature.
    static let signatureField = HTTPFieldName(BundleFormat.signatureField)

    func register(in handlers: inout RouteHandlers) {
        handlers.on("GET", "HEAD", route: .bundle) { request throws(ServiceProblem) in
            guard let snapshot = store.snapshotForBundle() else { throw ServiceProblem(.noPolicy) }
            return .now(Self.response(for: request.http, snapshot: snapshot))
        }
    }

    /// 304 when `If-None-Match` matches the bundle's tag, else 200 with the bytes.
    static func response(for request: HTTPRequest, snapshot: PolicySnapshot) -> HTTPResponse {
        let bundle = snapshot.bundle
        var headers = HTTPHeaders([
            (.eTag, bundle.entityTag), (.cacheControl, snapshot.settings.bundle.cacheControl),
        ])
        if let condition = EntityTagCondition(fieldValues: request.headers.values(for: .ifNoneMatch)),
            condition.matches(bundle.entityTag)
        {
            // The 200's length (RFC 9110 §8.6): without it the server would write the empty
            // body's `Content-Length: 0`, which says the bundle is empty.
            headers.add(name: .contentLength, value: String(bundle.bytes.count))
            return HTTPResponse(status: 304, headers: headers)
        }
        // A compiled bundle is a JSON line and then binary image bytes (docs/bundles.md).
        headers.add(name: .contentType, value: bundle.compiledImage == nil ? "application/json" : "application/octet-stream")
        if let signature = bundle.signatureBase64 { headers.add(name: signatureField, value: signature) }
        return HTTPResponse(status: 200, headers: headers, body: bundle.bytes)
    }
}
