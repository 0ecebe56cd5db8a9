/// The value types a responder sees (`HTTPHeaders`, `HTTPResponse`, `HTTPBodyStream`) live in
/// `HTTPTypes` so the proxy's origin client can use them without the server; re-exported so
/// that `import HTTPServer` keeps giving a responder everything it needs.
@_exported public import HTTPTypes
