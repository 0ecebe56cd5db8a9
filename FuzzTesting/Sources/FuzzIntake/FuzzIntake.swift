import NavigationPolicy
import ShareIntake

/// Every intake format (JSON, extension items, urlencoded, multipart, uri-list, free text):
/// a payload is either parsed or refused with an ``IntakeFailure``, never a trap; every URL
/// candidate then goes through the web-URL rules, and one that passes is an http(s) URL whose
/// href parses to itself.
///
/// Input: the first byte picks the Content-Type (the last choice takes the first line of the
/// input as the Content-Type itself); the rest is the body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIntake(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
    guard let selector = bytes.first else { return 0 }
    var body = Array(bytes.dropFirst())
    var contentType: String
    let types = [
        "application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=XyZ",
        "text/uri-list", "text/plain", "text/plain; charset=UTF-8", "multipart/form-data; boundary=\"a b\"",
    ]
    let choice = Int(selector) % (types.count + 1)
    if choice < types.count {
        contentType = types[choice]
    } else {
        let line = body.prefix { $0 != UInt8(ascii: "\n") }
        contentType = String(decoding: line, as: UTF8.self)
        body = Array(body.dropFirst(line.count + 1))
    }
    for accepted in [PayloadParser.acceptedMediaTypes, PayloadParser.formMediaTypes] {
        guard let payload = try? parser.parse(contentType: contentType, body: body, accepted: accepted) else { continue }
        for candidate in payload.urls {
            guard let url = try? WebURL(validating: candidate) else { continue }
            guard let record = try? URLRecord.parse(url.href), record.href == url.href else {
                fatalError("an accepted intake URL does not re-parse to itself: \(url.href.debugDescription)")
            }
            if record.scheme != "http" && record.scheme != "https" {
                fatalError("an accepted intake URL is not http(s): \(url.href.debugDescription)")
            }
        }
    }
    return 0
}

/// The limits the daemon starts with.
private let parser = PayloadParser(limits: IntakeLimits())
