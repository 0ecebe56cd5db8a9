import Testing

@testable import URLStandard

/// `URLRecord.slice` (and `slice(of:_:_:)`, which it calls) takes its indices from the UTF-16 view
/// when `href` is ASCII in the WebAssembly build (they need no alignment check there) and from the
/// UTF-8 view natively; these hold it to the bytes between the same UTF-8 offsets, for every pair
/// of offsets in and around parsed URLs and a record whose `href` is not ASCII.
@Suite("URL record: slices of href")
struct URLRecordSliceTests {
    /// The slice as the UTF-8 view makes it (offsets clamped, bounds rounded down to a scalar's
    /// start): what `slice` made before it took the UTF-16 view's indices.
    static func expected(_ href: String, _ from: Int, _ to: Int) -> Substring {
        let utf8 = href.utf8
        let lower = max(0, min(from, utf8.count))
        let upper = max(lower, min(to, utf8.count))
        let start = utf8.index(utf8.startIndex, offsetBy: lower)
        return Substring(utf8[start..<utf8.index(start, offsetBy: upper - lower)])
    }

    static func checkEveryRange(of record: URLRecord) {
        let href = record.href
        let count = href.utf8.count
        for from in -1...(count + 1) {
            for to in -1...(count + 1) {
                let slice = record.slice(from, to)
                let wanted = expected(href, from, to)
                #expect(slice == wanted, "\(href) \(from)..<\(to)")
                #expect(slice.startIndex == wanted.startIndex && slice.endIndex == wanted.endIndex, "\(href)")
                #expect(slice.base == href, "a slice shares its href")
            }
        }
    }

    @Test(
        "parsed URLs: every range, canonical or not",
        arguments: [
            "https://app.example.com/home", "https://APP.example.com/account/../sign_out;x=1", "https://h/%6Cogout?q#f",
            "http://u:p@[::1]:8080/a", "https://xn--nxasmq6b.example/é", "foo:opaque path", "https://h",
        ])
    func parsed(url: String) throws {
        Self.checkEveryRange(of: try URLRecord.parse(url))
    }

    @Test("a record whose href is not ASCII slices by UTF-8 offsets too")
    func notASCII() {
        // Component values are used as given (no encoding), so this href keeps its "é" and "€".
        let record = URLRecord(scheme: "foo", path: .opaque("é/€x"), query: "ü")
        #expect(record.href.utf8.count != record.href.utf16.count, "the case under test: \(record.href)")
        Self.checkEveryRange(of: record)
    }

    @Test("slices of the host and the path, as the match forms take them")
    func components() throws {
        let record = try URLRecord.parse("https://pay.example.com/checkout?order=42")
        #expect(record.slice(record.hostStart, record.hostEnd) == "pay.example.com")
        #expect(record.slice(record.pathRange.lowerBound, record.pathRange.upperBound) == "/checkout")
    }
}
