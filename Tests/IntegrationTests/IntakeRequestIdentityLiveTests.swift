import Foundation
import TestSelection
import Testing

/// What counts as "the same request" and "the same item" at the intake endpoints (issue 38,
/// item 14): an Idempotency-Key replays only a request whose stored content is the same
/// bytes, and an item id has one spelling in the path as in `after=`.
@Suite("Intake request identity", .serialized, .tags(.live))
struct IntakeRequestIdentityLiveTests {
    static func post(_ daemon: DaemonProcess, _ body: String, key: String) throws -> Curl.Response {
        try Curl.request(
            daemon.baseURL + "/v1/intake",
            ["-H", "Content-Type: application/json", "-H", "Idempotency-Key: \(key)", "-d", body])
    }

    @Test("the same key with the title in NFD after NFC is a different request (422), not a replay")
    func normalizationFormsDiffer() throws {
        let daemon = try DaemonProcess(config: #"{"handlers":[]}"#)
        let composed = #"{"url":"https://nfc.example/","title":"caf\#u{E9}"}"#
        let decomposed = #"{"url":"https://nfc.example/","title":"cafe\#u{301}"}"#
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        let first = try Self.post(daemon, composed, key: "nfc")
        #expect(first.status == 201, "\(first.body)")
        let second = try Self.post(daemon, decomposed, key: "nfc")
        #expect(second.status == 422, "\(second.status) \(second.headers) \(second.body)")
        #expect((second.json?["type"] as? String)?.hasSuffix(":idempotency-key-reused") == true, "\(second.body)")
        #expect(second.headers["idempotent-replayed"] == nil)
        // The same bytes again still replay.
        let again = try Self.post(daemon, composed, key: "nfc")
        #expect(again.status == 201 && again.headers["idempotent-replayed"] == "true", "\(again.body)")
    }

    @Test("an empty title is stored as null, so a null and an empty title are one request and nothing is dropped")
    func emptyTitleIsNull() throws {
        let daemon = try DaemonProcess(config: #"{"handlers":[]}"#)
        let first = try Self.post(daemon, #"{"url":"https://empty.example/","title":""}"#, key: "empty")
        #expect(first.status == 201, "\(first.body)")
        #expect(first.json?["title"] is NSNull, "\(first.body)")
        let second = try Self.post(daemon, #"{"url":"https://empty.example/","title":null}"#, key: "empty")
        #expect(second.status == 201 && second.headers["idempotent-replayed"] == "true", "\(second.body)")
    }

    @Test("/v1/intake/01 names no item, as after=01 is refused: one spelling per id")
    func itemIDSpelling() throws {
        let daemon = try DaemonProcess(config: #"{"handlers":[]}"#)
        let created = try Curl.request(
            daemon.baseURL + "/v1/intake", ["-H", "Content-Type: application/json", "-d", #"{"url":"https://id.example/"}"#])
        let id = try #require(created.json?["id"] as? String)
        #expect(try Curl.request(daemon.baseURL + "/v1/intake/\(id)").status == 200)
        for spelling in ["0\(id)", "00\(id)", "+\(id)"] {
            let response = try Curl.request(daemon.baseURL + "/v1/intake/\(spelling)")
            #expect(response.status == 404, "/v1/intake/\(spelling): \(response.status)")
            let deleted = try Curl.request(daemon.baseURL + "/v1/intake/\(spelling)", ["-X", "DELETE"])
            #expect(deleted.status == 404, "DELETE /v1/intake/\(spelling): \(deleted.status)")
        }
        #expect(try Curl.request(daemon.baseURL + "/v1/intake?after=0\(id)").status == 400)
        #expect(try Curl.request(daemon.baseURL + "/v1/intake/\(id)").status == 200, "still there")
    }
}
