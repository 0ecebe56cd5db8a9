import CCurl
import Testing

@testable import PolicyProxy

@Suite("request header lines laid out for CURLOPT_HTTPHEADER")
struct RequestFieldLinesTests {
    /// The C strings of a list, in order, following `next` the way libcurl does.
    private func strings(_ list: UnsafeMutablePointer<curl_slist>?) -> [String] {
        var result: [String] = []
        var node = list
        while let current = node {
            result.append(current.pointee.data.map { String(cString: $0) } ?? "<nil>")
            node = current.pointee.next
        }
        return result
    }

    @Test("each line is name, separator and value, NUL-terminated, in the order appended")
    func linesInOrder() {
        let lines = RequestFieldLines()
        lines.append("User-Agent", ": ", "curl/8")
        lines.append("X-Empty", ";", "")
        lines.append("Expect", ":", "")
        lines.append("Via", ": ", "1.1 a, 1.1 navpolicyd")
        #expect(strings(lines.build()) == ["User-Agent: curl/8", "X-Empty;", "Expect:", "Via: 1.1 a, 1.1 navpolicyd"])
    }

    @Test("a rebuild holds only the new lines, whether the buffer grows or is reused")
    func rebuildReplacesTheList() {
        let lines = RequestFieldLines()
        lines.append("A", ": ", "1")
        #expect(strings(lines.build()) == ["A: 1"])
        let long = String(repeating: "v", count: 5_000)
        lines.append("Long", ": ", long)
        lines.append("B", ": ", "ü")
        #expect(strings(lines.build()) == ["Long: " + long, "B: ü"])
        lines.append("C", ": ", "3")
        #expect(strings(lines.build()) == ["C: 3"])
    }

    @Test("no lines is no list")
    func empty() {
        #expect(RequestFieldLines().build() == nil)
    }
}
