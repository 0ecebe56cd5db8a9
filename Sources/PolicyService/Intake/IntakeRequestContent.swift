import Foundation
import JSONSupport
import ShareIntake

/// The normalized content of an intake request, as compared for Idempotency-Key reuse.
///
/// Built from what the request means (serialized URLs, title, text, tags, format, userInfo),
/// not from its bytes: a retry that re-encodes the same share (another boundary, other key
/// order) is the same request; a different URL or title is not. The endpoint is part of it,
/// because `/v1/intake` and `/v1/intake/share-target` store different responses.
enum IntakeRequestContent {
    static func fingerprint(_ payload: SharedPayload, urls: [WebURL], endpoint: String) -> String {
        let object: JSONObject = [
            "endpoint": .string(endpoint),
            "urls": .array(urls.map { .string($0.href) }), "title": payload.title.map(JSONValue.string) ?? .null,
            "text": payload.text.map(JSONValue.string) ?? .null, "tags": .array(payload.tags.map(JSONValue.string)),
            "source": .string(payload.format.rawValue), "userInfo": payload.userInfo ?? .null,
        ]
        return String(decoding: JSONValue.object(object).serializedBytes, as: UTF8.self)
    }

    /// The `Idempotency-Key` value: an RFC 8941 string (`"…"`) or a bare token as Stripe's
    /// clients send it; 1 to 255 visible ASCII characters. Nil when absent.
    static func idempotencyKey(_ header: String?) throws(IntakeFailure) -> String? {
        guard var key = header?.trimmingCharacters(in: .whitespaces) else { return nil }
        if key.count >= 2, key.hasPrefix("\""), key.hasSuffix("\"") { key = String(key.dropFirst().dropLast()) }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw IntakeFailure(
                .idempotencyKeyInvalid, "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is best)")
        }
        return key
    }
}
