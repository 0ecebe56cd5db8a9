public import Foundation
internal import JSONSupport

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// One share from a share extension, as `POST /v1/intake` takes it: the URLs an
/// `NSExtensionItem`'s attachments carried as `public.url`, its title and text.
///
/// The body is the intake's extension-items format, written deterministically, and the
/// ``idempotencyKey`` is part of the value: persist the value (or its key) with the pending
/// share, and every retry sends the same bytes and the same key, so the daemon stores it once.
public struct ShareIntakeRequest: Sendable, Equatable {
    /// The `public.url` values, one per extension item (the intake takes one URL per item).
    public var urls: [String]
    /// `attributedTitle` of the extension item (the page title Safari passes).
    public var title: String?
    /// `attributedContentText` (the text the user typed in the share sheet).
    public var text: String?
    public var idempotencyKey: IdempotencyKey

    /// - Throws: when `urls` is empty, or holds more than the intake's 16 extension items.
    public init(
        urls: [String], title: String? = nil, text: String? = nil, idempotencyKey: IdempotencyKey = IdempotencyKey()
    ) throws(ShareIntakeRequestError) {
        guard !urls.isEmpty else {
            throw ShareIntakeRequestError(field: "urls", reason: "a share needs at least one public.url")
        }
        guard urls.count <= Self.maximumItems else {
            throw ShareIntakeRequestError(
                field: "urls", reason: "\(urls.count) URLs; the intake takes at most \(Self.maximumItems) extension items")
        }
        self.urls = urls
        self.title = title
        self.text = text
        self.idempotencyKey = idempotencyKey
    }

    /// The intake's limit on extension items per request.
    public static let maximumItems = 16

    /// `{"extensionItems":[{"attributedTitle"?,"attributedContentText"?,"attachments":[{"registeredTypeIdentifiers":["public.url"],"items":{"public.url":…}}]}]}`;
    /// title and text go with the first item.
    public var body: [UInt8] {
        var items: [JSONValue] = []
        for (position, url) in urls.enumerated() {
            var item = JSONObject()
            if position == 0, let title { item.append("attributedTitle", .string(title)) }
            if position == 0, let text { item.append("attributedContentText", .string(text)) }
            let attachment: JSONObject = [
                "registeredTypeIdentifiers": .array([.string("public.url")]),
                "items": .object(["public.url": .string(url)]),
            ]
            item.append("attachments", .array([.object(attachment)]))
            items.append(.object(item))
        }
        var writer = JSONWriter()
        writer.write(.object(["extensionItems": .array(items)]))
        return writer.bytes
    }

    /// The request to send: `POST <daemon>/v1/intake`, JSON, the share's Idempotency-Key, and
    /// the intake token when the daemon requires one.
    public func urlRequest(daemon: URL, intakeToken: String? = nil, timeout: TimeInterval = 30) -> URLRequest {
        var request = URLRequest(
            url: daemon.appendingPathComponent("v1").appendingPathComponent("intake"),
            cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(idempotencyKey.value, forHTTPHeaderField: "Idempotency-Key")
        if let intakeToken { request.setValue("Bearer \(intakeToken)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(body)
        return request
    }

    /// What the extension does with the daemon's answer.
    public enum Delivery: Sendable, Equatable {
        /// 201 (stored) or 200 (a duplicate, or the replay of an earlier try): forget the share.
        case delivered
        /// Nothing usable came back (no connection, a timeout, 409 in flight, 429, 5xx): keep the
        /// share and retry later with the same key.
        case retryLater
        /// The daemon refused the share (a 4xx problem): retrying the same bytes cannot help;
        /// tell the user.
        case refused(status: Int)
    }

    /// Classifies an HTTP status (nil: no answer at all). Only 200 and 201 acknowledge a share.
    public static func delivery(forStatus status: Int?) -> Delivery {
        guard let status else { return .retryLater }
        switch status {
        case 200, 201: return .delivered
        case 408, 409, 425, 429, 500...599: return .retryLater
        case 400...499: return .refused(status: status)
        default: return .retryLater
        }
    }
}

/// A share that cannot be sent as given.
public struct ShareIntakeRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var reason: String
    public var description: String { "\(field): \(reason)" }
}
