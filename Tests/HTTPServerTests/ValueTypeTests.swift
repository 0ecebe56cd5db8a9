import JSONSupport
import TestSelection
import Testing

@testable import HTTPServer

@Suite(.tags(.inProcess)) struct ValueTypeTests {
    @Test func headersLookUpCaseInsensitivelyAndKeepOrder() {
        var headers = HTTPHeaders([("Accept", "a"), ("X-One", "1")])
        headers.add(name: "x-one", value: "2")
        #expect(headers["X-ONE"] == "1")
        #expect(headers.values(for: "x-One") == ["1", "2"])
        #expect(headers.map(\.name) == ["Accept", "X-One", "x-one"])
        #expect(headers["missing"] == nil)
    }

    @Test func theOneComparisonFoldsASCIILettersOnly() {
        #expect(ASCIICaseInsensitive.equal("Content-Length", "content-LENGTH"))
        #expect(!ASCIICaseInsensitive.equal("Host", "Hosu"))
        #expect(!ASCIICaseInsensitive.equal("Host", "Hos"))
        #expect(!ASCIICaseInsensitive.equal("é", "É"))
        #expect(ASCIICaseInsensitive.equal("", ""))
        #expect(
            ASCIICaseInsensitive.equal(String(repeating: "X-Long-Name-", count: 4), String(repeating: "x-long-name-", count: 4)))
        // Only A–Z fold: the bytes just outside the range ("@" 0x40, "[" 0x5B) and every byte
        // above ASCII stay themselves.
        for byte in UInt8.min...UInt8.max {
            let expected = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 : byte
            #expect(ASCIICaseInsensitive.lowercased(byte) == expected)
        }
        #expect(!ASCIICaseInsensitive.equal("@", "`") && !ASCIICaseInsensitive.equal("[", "{"))
        #expect(ASCIICaseInsensitive.hasPrefix(Array("Bearer abc".utf8), lowercase: "bearer "))
        #expect(!ASCIICaseInsensitive.hasPrefix(Array("Bearer".utf8), lowercase: "bearer "))
        #expect(Array("CONTENT-length".utf8).withUnsafeBytes { ASCIICaseInsensitive.equal($0, lowercase: "content-length") })
        #expect(HTTPFieldName.contentLength.matches("content-LENGTH") && !HTTPFieldName.host.matches("Hosts"))
    }

    @Test func requestSplitsTargetAndDecodesQueryItems() {
        let request = HTTPRequest(method: "GET", rawTarget: "/a%2Fb?x=1+2&y=%41%zz&flag&=v&&z=%E2%82%AC")
        #expect(request.path == "/a%2Fb")
        #expect(request.query == "x=1+2&y=%41%zz&flag&=v&&z=%E2%82%AC")
        let items = request.queryItems.map { "\($0.name)=\($0.value)" }
        #expect(items == ["x=1 2", "y=A%zz", "flag=", "=v", "z=€"])
        #expect(request.queryValue("z") == "€")
        #expect(HTTPRequest(method: "GET", rawTarget: "/p").query == nil)
        #expect(HTTPRequest(method: "GET", rawTarget: "/p?").queryItems.isEmpty)
    }

    @Test func queryValueMatchesDecodedNamesAndDecodesOnlyItsValue() {
        let request = HTTPRequest(method: "GET", rawTarget: "/d?a=1&%75rl=https%3A%2F%2Fx.test%2F&url=second&u+v=w")
        // The first pair whose *decoded* name matches, as a search over queryItems would find.
        #expect(request.queryValue("url") == "https://x.test/")
        #expect(request.queryValue("u v") == "w")
        #expect(request.queryValue("missing") == nil)
        #expect(HTTPRequest(method: "GET", rawTarget: "/d").queryValue("a") == nil)
        #expect(request.rawQuery == "a=1&%75rl=https%3A%2F%2Fx.test%2F&url=second&u+v=w")
    }

    @Test func pathAndQueryBytesAreSlicesOfTheTarget() {
        let request = HTTPRequest(method: "GET", rawTarget: "/d/x?a=1?b&c")
        #expect(Array(request.pathBytes) == Array("/d/x".utf8))
        #expect(request.rawQueryBytes.map(Array.init) == Array("a=1?b&c".utf8))
        #expect(request.rawQuery == "a=1?b&c")
        let bare = HTTPRequest(method: "GET", rawTargetBytes: Array("/p".utf8))
        #expect(Array(bare.pathBytes) == Array("/p".utf8) && bare.rawQueryBytes == nil)
        let empty = HTTPRequest(method: "GET", rawTargetBytes: Array("/p?".utf8))
        #expect(empty.rawQueryBytes.map(Array.init) == [] && empty.query == "")
        var moved = request
        moved.rawTargetBytes = Array("?q".utf8)
        #expect(moved.pathBytes.isEmpty && moved.path == "" && moved.query == "q")
    }

    @Test func pathAndQuerySettersRewriteTheTarget() {
        var request = HTTPRequest(method: "GET", rawTarget: "/old?q=1")
        request.path = "/new"
        #expect(request.rawTarget == "/new?q=1")
        request.query = nil
        #expect(request.rawTarget == "/new")
        request.rawTarget = "/x?y"
        #expect(request.path == "/x" && request.query == "y")
    }

    @Test func bodyLimitLooksUpThePathWithoutItsQuery() {
        let table = BodyLimitTable(["/v1/intake": 7, "/v1/intake/share": 9, "/a": 1])
        #expect(table.limit(forTarget: "/v1/intake?x=1") == 7)
        #expect(table.limit(forTarget: "/v1/intake") == 7)
        #expect(table.limit(forTarget: "/v1/intake?") == 7)
        #expect(table.limit(forTarget: "/v1/intake/share?x") == 9)
        #expect(table.limit(forTarget: "/v1/intake/?x") == nil)
        #expect(table.limit(forTarget: "/v1/intakes") == nil)
        #expect(table.limit(forTarget: "/v1/intak") == nil)
        #expect(table.limit(forTarget: "/V1/intake") == nil)
        #expect(table.limit(forTarget: "/v1/decide?url=/v1/intake") == nil)
        #expect(table.limit(forTarget: "/a?/v1/intake") == 1)
        #expect(table.limit(forTarget: "") == nil)
        #expect(BodyLimitTable([:]).limit(forTarget: "/v1/intake") == nil)
    }

    @Test func knownRequestLineTokensAreInternedAndOthersCopied() {
        #expect(InternedTokens.method("GET") == "GET")
        #expect(InternedTokens.method("GETX") == "GETX")
        #expect(InternedTokens.method("get") == "get")
        #expect(InternedTokens.version("HTTP/1.0") == "HTTP/1.0")
        #expect(InternedTokens.version("HTTP/2") == "HTTP/2")
        for name in ["Host", "host", "HOST", "User-Agent", "X-Forwarded-Proto", "X-Forwarded-Prot", "X-Other", "Hos"] {
            // Interned or copied, the name is exactly the bytes sent (case included).
            let interned = Array(name.utf8).withUnsafeBytes { InternedTokens.fieldName($0) }
            #expect(interned == name && Array(interned.utf8) == Array(name.utf8))
        }
    }

    @Test func everyInternedFieldNameIsAToken() {
        // The collector skips the token check for a name spelled as an interned one.
        #expect(InternedTokens.knownFieldNames.count == 16)
        for name in InternedTokens.knownFieldNames {
            #expect(FieldSyntax.isToken(Array(name.utf8)), "\(name)")
            #expect(Array(name.utf8).withUnsafeBytes { InternedTokens.knownFieldName($0) } == name)
        }
        #expect(Array("host".utf8).withUnsafeBytes { InternedTokens.knownFieldName($0) } == nil)
        #expect(Array("Host ".utf8).withUnsafeBytes { InternedTokens.knownFieldName($0) } == nil)
    }

    @Test func framingFactsNotedPerFieldMatchACaseInsensitiveLookup() {
        let names = [
            "Host", "host", "HOST", "hOsT", "Hosu", "Hos", "Hostt", "Content-Length", "content-length", "CONTENT-LENGTH",
            "Content-Lengtj", "Content_Length", "Transfer-Encoding", "transfer-encoding", "TRANSFER-ENCODING",
            "Transfer-Encodinh", "Transfer-Encodings", "X-Other", "Content-Type", "Ho\u{C5}F", "Content-Lengt\u{130}",
        ]
        var headers = HTTPHeaders()
        for (index, name) in names.enumerated() { headers.add(name: HTTPFieldName(name), value: "v\(index)") }
        let noted = FramingFields(headers)
        #expect(noted.hosts == headers.count(of: "Host"))
        #expect(noted.contentLengths == headers.values(for: "Content-Length"))
        #expect(noted.transferEncodings == headers.values(for: "Transfer-Encoding"))
        #expect(noted.hosts == 4 && noted.contentLengths.count == 3 && noted.transferEncodings.count == 3)
    }

    @Test func formDecodingNeverFailsOnInvalidInput() {
        #expect(FormURLDecoding.decode(Array("%".utf8)) == "%")
        #expect(FormURLDecoding.decode(Array("%4".utf8)) == "%4")
        #expect(FormURLDecoding.decode(Array("%FF".utf8)) == "\u{FFFD}")
    }

    @Test func problemRendersRFC9457MembersFirst() throws {
        let problem = ProblemDetails(
            kind: "uri-too-long", title: "URI too long", status: 414, detail: "d",
            extensions: ["limit": .number(5), "type": .string("ignored")])
        let response = problem.response(typePrefix: "urn:x:")
        #expect(response.status == 414)
        #expect(response.headers["content-type"] == "application/problem+json")
        let parsed = try JSONParser().parse(response.bodyBytes)
        #expect(parsed.objectValue?.keys == ["type", "title", "status", "detail", "limit"])
        #expect(parsed.objectValue?["type"]?.stringValue == "urn:x:uri-too-long")
        #expect(parsed.objectValue?["status"]?.integerValue == 414)
        // The bytes are written directly; they must stay those of the JSON object form.
        let escaped = ProblemDetails(kind: "k", title: "T \"q\" \u{1}", status: 400, extensions: ["n": .array([.null])])
        #expect(
            escaped.response(typePrefix: "p/").bodyBytes == JSONValue.object(escaped.jsonObject(typePrefix: "p/")).serializedBytes
        )
        #expect(response.bodyBytes == JSONValue.object(problem.jsonObject(typePrefix: "urn:x:")).serializedBytes)

        let extended = ProblemDetails(kind: "k", title: "T", status: 403, extensions: ["a": .number(1)])
            .response(typePrefix: "p/") { $0.writeRaw(#","b":{"c":null}"#) }
        let extendedObject = try #require(try JSONParser().parse(extended.bodyBytes).objectValue)
        #expect(extendedObject.keys == ["type", "title", "status", "a", "b"])
        #expect(extendedObject["b"]?.objectValue?["c"] == .null)
    }

    @Test func localhostBindsIPv4Loopback() {
        #expect(
            HTTPServerConfiguration(host: "LocalHost", problemTypePrefix: testProblemTypePrefix).bindAddressLiteral == "127.0.0.1"
        )
        #expect(HTTPServerConfiguration(host: "::1", problemTypePrefix: testProblemTypePrefix).bindAddressLiteral == "::1")
        #expect(HTTPServerConfiguration(problemTypePrefix: testProblemTypePrefix).connectionTimeoutSeconds > 0)
        #expect(HTTPServerConfiguration(problemTypePrefix: testProblemTypePrefix).threadPoolSize >= 1)
    }
}
