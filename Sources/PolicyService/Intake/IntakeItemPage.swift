import HTTPServer
import ShareIntake

/// The small HTML page `GET /v1/intake/{id}` answers browsers with (the share-target's
/// 303 lands here). Every value is escaped and the page loads nothing.
enum IntakeItemPage {
    /// Whether `Accept` asks for HTML rather than JSON (browsers list `text/html` first).
    static func prefersHTML(_ accept: String?) -> Bool {
        guard let accept = accept?.lowercased(), let html = accept.range(of: "text/html") else { return false }
        guard let json = accept.range(of: "application/json") else { return true }
        return html.lowerBound < json.lowerBound
    }

    /// The page loads nothing and may not be framed: `frame-ancestors 'none'` for browsers that
    /// read CSP, `X-Frame-Options: DENY` for those that do not; `nosniff` so the bytes are never
    /// read as anything but this HTML (the title and URL are the sharer's text).
    static let headers = HTTPHeaders([
        (.contentType, "text/html; charset=utf-8"),
        (.contentSecurityPolicy, "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        (.xFrameOptions, "DENY"),
        (.xContentTypeOptions, "nosniff"),
        (.referrerPolicy, "no-referrer"),
    ])

    static func response(for item: IntakeItem) -> HTTPResponse {
        let verdict = item.decision["decision"]?.stringValue ?? "unknown"
        let title = item.title ?? item.url
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(HTMLText.escape(title))</title></head>
            <body><h1>Shared: \(HTMLText.escape(title))</h1>
            <p><a href="\(HTMLText.escape(item.url))" rel="noreferrer noopener">\(HTMLText.escape(item.url))</a></p>
            <p>Policy decision: <strong>\(HTMLText.escape(verdict))</strong></p>
            <p>Received \(HTMLText.escape(item.receivedAt)) via \(HTMLText.escape(item.source)). Item \(item.id).</p>
            </body></html>

            """
        return HTTPResponse(status: 200, headers: headers, body: Array(html.utf8))
    }
}
