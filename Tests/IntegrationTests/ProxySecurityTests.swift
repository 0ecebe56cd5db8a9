import Foundation
import TestSelection
import Testing

/// The fields /echo reports, lower-cased names → values (repeated names joined by ", ").
private func echoedFields(_ body: String) -> [String: String] {
    var fields: [String: String] = [:]
    for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.isEmpty { break }
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        fields[name] = fields[name].map { $0 + ", " + value } ?? value
    }
    return fields
}

/// Attacks from outside on the proxy listener: each test failed on the code before its fix.
@Suite(
    "proxy security: smuggling, response mix-up, open proxy, header stripping, framing, Fetch Metadata", .serialized,
    .tags(.live, .sanitizerRelevant))
struct ProxySecurityTests {
    @Test("an origin's unsolicited extra response never reaches the next client: the connection is not reused")
    func unsolicitedResponsesAreDropped() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]
        let attacks: [(target: String, arguments: [String])] = [
            ("/inject?when=later", []), ("/inject?when=now", []), ("/inject-chunked", []),
            ("/extra-body?status=204", []), ("/extra-body?status=304", []), ("/extra-body?status=200", ["-I"]),
            ("/early", ["--data-binary", "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"]),
        ]
        for (index, attack) in attacks.enumerated() {
            let first = try Curl.request(origin.baseURL + attack.target, proxy + attack.arguments)
            #expect(first.status != 0, "\(attack.target)")
            // Give the origin time to put its extra bytes on the pooled connection.
            Thread.sleep(forTimeInterval: 0.4)
            for attempt in 0..<2 {
                let next = try Curl.request(origin.baseURL + "/own-\(index)-\(attempt)", proxy)
                #expect(next.status == 200, "after \(attack.target)")
                #expect(next.body.contains("origin /own-\(index)-\(attempt)"), "after \(attack.target): \(next.body)")
                #expect(!next.body.contains("INJECTED"), "after \(attack.target)")
            }
        }
        // Keep-alive still works for well-behaved exchanges.
        let firstPeer = try Curl.request(origin.baseURL + "/peer", proxy).body
        let secondPeer = try Curl.request(origin.baseURL + "/peer", proxy).body
        #expect(firstPeer == secondPeer)
        // … and for requests with a body the origin read before answering.
        let firstPost = try Curl.request(origin.baseURL + "/peer", proxy + ["--data-binary", "a=1"]).body
        let secondPost = try Curl.request(origin.baseURL + "/peer", proxy + ["--data-binary", "a=2"]).body
        #expect(firstPost.hasPrefix("peer "))
        #expect(firstPost == secondPost)
    }

    @Test("fields with control characters or non-token names are refused, never forwarded")
    func malformedFieldsAreRefused() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        let smuggled = "GET /logout HTTP/1.1\rHost: 127.0.0.1\r\r"
        let fields = [
            "X-A: a\r\(smuggled)", "X-A: a\n\(smuggled)", "X-A: a\u{1}b", "X-A: a\u{7F}b", "Bad Name: x",
            "X(A): x", "X-A: a\r\n \(smuggled)",
        ]
        for (index, field) in fields.enumerated() {
            let connection = try RawConnection(port: port)
            connection.send("GET \(origin.baseURL)/field-\(index) HTTP/1.1\r\nHost: a\r\n\(field)\r\n\r\n")
            let response = connection.receiveResponse()
            #expect(response.status == 0 || response.status == 400, "\(field.debugDescription): \(response.status)")
        }
        #expect(!origin.saw("/field-"))
        #expect(!origin.saw("/logout"))
    }

    @Test("reverse mode is not an open forward proxy: absolute targets on other origins get 421")
    func reverseModeRefusesOtherOrigins() throws {
        let origin = try TestOrigin()
        let section = #"{"upstream": "\#(origin.baseURL)", "publicOrigin": "https://app.example.com"}"#
        let daemon = try DaemonProcess(
            config: proxyTestConfig(origin: origin, proxySection: section), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let port = try daemon.proxyPort()
        for target in ["\(daemon.baseURL)/v1/policy", "\(origin.baseURL)/direct", "http://app.example.com/echo"] {
            let connection = try RawConnection(port: port)
            connection.send("GET \(target) HTTP/1.1\r\nHost: app.example.com\r\n\r\n")
            let response = connection.receiveResponse()
            #expect(response.status == 421, "\(target)")
            #expect(response.body.contains("misdirected-request"), "\(target)")
            #expect(!response.body.contains("\"handlers\""))
        }
        #expect(!origin.saw("/direct"))
        #expect(!origin.saw("/echo"))
        // The public origin itself, in any spelling, is the reverse target.
        let same = try RawConnection(port: port)
        same.send("GET https://APP.example.com:443/echo?abs=1 HTTP/1.1\r\nHost: app.example.com\r\n\r\n")
        let relayed = same.receiveResponse()
        #expect(relayed.status == 200)
        #expect(relayed.body.contains("X-Forwarded-Host: app.example.com"))
        let cancelled = try RawConnection(port: port)
        cancelled.send("GET https://app.example.com/logout HTTP/1.1\r\nHost: app.example.com\r\n\r\n")
        #expect(cancelled.receiveResponse().status == 403)
        #expect(origin.saw("GET /echo?abs=1"))
        #expect(!origin.saw("/logout"))
    }

    @Test("Connection cannot strip the proxy's own X-Forwarded-* fields")
    func connectionCannotStripForwardedFields() throws {
        let origin = try TestOrigin()
        let forward = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let echoed = try Curl.request(
            origin.baseURL + "/echo",
            ["-x", "127.0.0.1:\(forward.proxyPort())", "-H", "Connection: X-Forwarded-For", "-H", "X-Forwarded-For: 192.0.2.1"])
        let forwardFields = echoedFields(echoed.body)
        #expect(forwardFields["x-forwarded-for"] == "127.0.0.1", "\(echoed.body)")

        let section = #"{"upstream": "\#(origin.baseURL)", "publicOrigin": "https://app.example.com"}"#
        let reverse = try DaemonProcess(
            config: proxyTestConfig(origin: origin, proxySection: section), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let reversed = try Curl.request(
            "http://127.0.0.1:\(reverse.proxyPort())/echo",
            [
                "-H", "Connection: X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host", "-H", "X-Forwarded-Proto: gopher",
                "-H", "X-Forwarded-Host: evil.example", "-H", "X-Forwarded-For: 192.0.2.1",
            ])
        let reverseFields = echoedFields(reversed.body)
        #expect(reverseFields["x-forwarded-for"] == "127.0.0.1", "\(reversed.body)")
        #expect(reverseFields["x-forwarded-proto"] == "https")
        #expect(reverseFields["x-forwarded-host"] == "app.example.com")

        // Without Connection, the client's chain is kept and this proxy's hop is the last entry.
        let chained = try Curl.request(
            origin.baseURL + "/echo", ["-x", "127.0.0.1:\(forward.proxyPort())", "-H", "X-Forwarded-For: 192.0.2.1"])
        #expect(echoedFields(chained.body)["x-forwarded-for"] == "192.0.2.1, 127.0.0.1")
    }

    @Test("framing is forwarded as the client sent it: no invented Content-Length or Content-Type; Host is the decided URL's")
    func framingIsFaithful() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]
        let url = origin.baseURL + "/echo"

        let get = echoedFields(try Curl.request(url, proxy + ["-H", "Host: other.example"]).body)
        #expect(get["content-length"] == nil)
        #expect(get["content-type"] == nil)
        #expect(get["host"] == "127.0.0.1:\(origin.port)")
        let delete = echoedFields(try Curl.request(url, proxy + ["-X", "DELETE"]).body)
        #expect(delete["content-length"] == nil)
        #expect(delete["content-type"] == nil)
        let untyped = try Curl.request(url, proxy + ["--data-binary", "abc", "-H", "Content-Type:"])
        #expect(echoedFields(untyped.body)["content-length"] == "3")
        #expect(echoedFields(untyped.body)["content-type"] == nil)
        #expect(untyped.body.hasSuffix("\n\nabc"))
        let empty = echoedFields(try Curl.request(url, proxy + ["--data-binary", "", "-H", "Content-Type:"]).body)
        #expect(empty["content-length"] == "0")
        #expect(empty["content-type"] == nil)
        let put = try Curl.request(url, proxy + ["-X", "PUT", "--data-binary", "abcd", "-H", "Content-Type: text/plain"])
        #expect(echoedFields(put.body)["content-length"] == "4")
        #expect(echoedFields(put.body)["content-type"] == "text/plain")
        #expect(
            origin.requests.filter { $0.hasSuffix(" /echo") } == [
                "GET /echo", "DELETE /echo", "POST /echo", "POST /echo", "PUT /echo",
            ])
        // A chunked body goes out with a Content-Length equal to the bytes received.
        let chunked = try Curl.request(url, proxy + ["--data-binary", "abcde", "-H", "Transfer-Encoding: chunked"])
        #expect(echoedFields(chunked.body)["content-length"] == "5")
        #expect(echoedFields(chunked.body)["transfer-encoding"] == nil)
    }

    @Test("decide: navigations skips only exact subresource Sec-Fetch-Mode values")
    func fetchMetadataIsStrict() throws {
        let origin = try TestOrigin()
        let daemon = try DaemonProcess(config: proxyTestConfig(origin: origin), arguments: ["--proxy-listen", "127.0.0.1:0"])
        let proxy = try ["-x", "127.0.0.1:\(daemon.proxyPort())"]
        let decided: [[String]] = [
            ["-H", "Sec-Fetch-Mode;"], ["-H", "Sec-Fetch-Mode: garbage"], ["-H", "Sec-Fetch-Mode: CORS"],
            ["-H", "Sec-Fetch-Mode: cors", "-H", "Sec-Fetch-Mode: navigate"], ["-H", "Sec-Fetch-Mode: cors, navigate"],
            ["-H", "Sec-Fetch-Mode: no-cors", "-H", "Sec-Fetch-Mode: no-cors"],
        ]
        for headers in decided {
            let response = try Curl.request(origin.baseURL + "/logout", proxy + headers)
            #expect(response.status == 403, "\(headers)")
        }
        #expect(!origin.saw("/logout"))
        for mode in ["cors", "no-cors", "same-origin", "websocket"] {
            let response = try Curl.request(origin.baseURL + "/logout?\(mode)", proxy + ["-H", "Sec-Fetch-Mode: \(mode)"])
            #expect(response.status == 200, "\(mode)")
        }
    }
}
