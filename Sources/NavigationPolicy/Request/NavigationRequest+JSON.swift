public import JSONSupport

extension NavigationRequest {
    /// The fields of a request object in JSON (`POST /v1/decide`, test cases).
    public static let jsonKeys = ["url", "method", "navigationType", "targetFrame", "sourceURL"]

    /// Reads a request from a JSON object: `url` required, the rest optional with their defaults.
    ///
    /// - Parameter extraKeys: other members the caller handles itself; any member that is
    ///   neither a request field nor listed here is an error, so typos are not silently ignored.
    public init(json object: JSONObject, extraKeys: [String] = []) throws(NavigationRequestError) {
        // Names compared byte for byte (``UTF8Bytes``): `contains` on strings normalized a hostile
        // name first, quadratic in a run of combining marks (outside attack 14, R1).
        for member in object.members
        where !Self.jsonKeys.contains(where: member.key.hasSameUTF8) && !extraKeys.contains(where: member.key.hasSameUTF8) {
            throw NavigationRequestError(
                field: EchoedText.bounded(member.key),
                reason: "unknown field; expected one of "
                    + (Self.jsonKeys + extraKeys).map { "\"\($0)\"" }.joined(separator: ", "))
        }
        func string(_ key: String) throws(NavigationRequestError) -> String? {
            guard let value = object[key], value != .null else { return nil }
            guard case .string(let text) = value else {
                throw NavigationRequestError(field: key, reason: "expected a string, got \(value.kindName)")
            }
            return text
        }
        // Every member's type first, in member order; then what the text says
        // (``init(url:methodText:navigationTypeText:targetFrameText:sourceURL:)``).
        let url = try string("url")
        let method = try string("method")
        let navigationType = try string("navigationType")
        let targetFrame = try string("targetFrame")
        let sourceURL = try string("sourceURL")
        try self.init(
            url: url, methodText: method, navigationTypeText: navigationType, targetFrameText: targetFrame,
            sourceURL: sourceURL)
    }
}
