/// The HTTP model a responder sees (`HTTPRequest`, `HTTPResponder` and its result,
/// `HTTPResponse`, `HTTPHeaders`, `HTTPBodyStream`) lives in `HTTPTypes` so that any transport
/// serves the same responder and the proxy's origin client uses it without the server;
/// re-exported so that `import HTTPServer` keeps giving a responder everything it needs.
@_exported public import HTTPTypes
