import HTTPServer

/// `Authorization: Bearer <token>` for a group of routes: the one bearer check, attached
/// to the admin routes (realm `navpolicyd`) and to the intake routes (realm `navpolicyd-intake`).
struct BearerAuthorization: Sendable {
    /// The token a request must present.
    let token: AdminToken
    /// The `WWW-Authenticate` realm.
    let realm: String
    /// What to call the token in the problem detail ("admin token").
    let tokenName: String
    /// Where refusals are logged (`auth.failed`); nil logs nothing.
    var failures: AuthFailureLog? = nil

    /// Throws 401 `unauthorized` with the challenge unless the request presents the token;
    /// `route` (the matched template) goes into the `auth.failed` event.
    func check(_ request: HTTPRequest, route: String) throws(ServiceProblem) {
        let fields = request.headers.values(for: .authorization)
        let presented = fields.first
        // Two Authorization fields are ambiguous (which one did a front proxy set?): neither
        // counts, whatever their order, so a client's extra field can never ride on a good one.
        guard fields.count > 1 || !token.authorizes(presented) else { return }
        failures?.record(route: route, realm: realm, request: request)
        let detail =
            fields.count > 1
            ? "Send one Authorization field."
            : presented != nil
                ? "The bearer token is not valid." : "Send Authorization: Bearer <\(tokenName)>."
        let challenge =
            presented != nil ? #"Bearer realm="\#(realm)", error="invalid_token""# : #"Bearer realm="\#(realm)""#
        throw ServiceProblem(.unauthorized(detail), headers: HTTPHeaders([(.wwwAuthenticate, challenge)]))
    }
}
