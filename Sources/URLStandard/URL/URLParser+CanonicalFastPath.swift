extension URLParser {
    /// Recognizes an `http:`/`https:` URL that is already in its WHATWG serialization and
    /// returns its record without running the state machine; nil means "not sure: parse it".
    ///
    /// Most URLs a browser or app sends are canonical already, and for them the state machine
    /// only copies bytes into an output array that is then compared with the input and thrown
    /// away (one allocation and about half of a decision's instructions). This scan accepts
    /// only inputs whose serialization provably equals the input, so the record's offsets are
    /// the input's own and `href` is `original` itself:
    /// - every byte is printable ASCII (0x21–0x7E): nothing to trim, strip or encode as UTF-8;
    /// - scheme `http` or `https`, lowercase, then `//`;
    /// - a host of lowercase letters, digits, `-` and `.`, with no empty label and a last label
    ///   that does not make it an IPv4 address (an all-ASCII domain is only lowercased by the
    ///   host parser, so it serializes as itself);
    /// - an optional port: 1–5 digits, no leading zero, ≤ 65535, not the scheme's default;
    /// - a path that starts with `/`, has no `.`/`..` segment and no byte the parser would
    ///   encode or reinterpret (`\` or a member of the path percent-encode set); a `%` only
    ///   as a complete escape `%XX` (which the parser keeps as it is, hex case included) of
    ///   anything but `.` (`%2e` can spell a dot segment) and `/` or `\` (`%2F`, `%5C`: the
    ///   caller's encoded-separator readings, ``URLRecord/parseNotingCanonicalInput(_:)``);
    /// - a query and fragment with no byte of their percent-encode sets.
    /// Anything else (credentials, IPv6, uppercase, IDNA, default port, relative input) returns
    /// nil and takes the full parser, so the fast path can only be less general, never different.
    /// `URLParserFastPathTests` checks it against the state machine.
    // Fast twin kept (issue 44, gate measured through the state machine): default +70% instructions, host-list-100k +55%.
    static func parseCanonicalHTTP(_ input: UnsafeBufferPointer<UInt8>, original: String) -> URLRecord? {
        let len = input.count
        // "http://" or "https://": the scheme's bytes are checked one by one below.
        guard len >= 8, input[0] == 0x68, input[1] == 0x74, input[2] == 0x74, input[3] == 0x70 else { return nil }
        let kind: URLScheme
        let schemeEnd: Int
        if input[4] == 0x3A {
            kind = .http
            schemeEnd = 4
        } else if input[4] == 0x73, input[5] == 0x3A {
            kind = .https
            schemeEnd = 5
        } else {
            return nil
        }
        let authorityStart = schemeEnd + 3
        guard authorityStart < len, input[schemeEnd + 1] == 0x2F, input[schemeEnd + 2] == 0x2F else { return nil }

        // Host: lowercase LDH labels separated by single dots.
        var i = authorityStart
        var labelStart = i
        while i < len {
            let b = input[i]
            if b == 0x2E {
                guard i > labelStart else { return nil }  // empty label (or leading dot)
                labelStart = i + 1
            } else if !((b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D) {
                break
            }
            i += 1
        }
        let hostEnd = i
        // A trailing dot or empty host is left to the parser. A last label that starts with a
        // letter is no IPv4 number (those start with a digit, hex ones with `0x`), so only
        // other labels pay for the full check (~90 instructions a URL, for `.com`).
        guard hostEnd > labelStart else { return nil }
        if input[labelStart] &- 0x61 >= 26,
            IPv4Address.endsInANumber(UnsafeBufferPointer(rebasing: input[authorityStart..<hostEnd]))
        {
            return nil
        }

        // Port.
        var port: UInt16? = nil
        if i < len, input[i] == 0x3A {
            i += 1
            let digitsStart = i
            var value = 0
            while i < len, input[i] >= 0x30, input[i] <= 0x39, i - digitsStart < 5 {
                value = value * 10 + Int(input[i] &- 0x30)
                i += 1
            }
            guard i > digitsStart, input[digitsStart] != 0x30, value <= 0xFFFF,
                UInt16(value) != kind.defaultPort
            else { return nil }
            port = UInt16(value)
        }

        // Path: must be present (the parser would add "/") and need no rewriting.
        guard i < len, input[i] == 0x2F else { return nil }
        let pathStart = i
        var segmentStart = i + 1
        i += 1
        while true {
            let b: UInt8 = i < len ? input[i] : 0x2F
            if b == 0x2F || b == 0x3F || b == 0x23 {
                // Segment [segmentStart, i): "." or ".." would be removed or resolved.
                let n = i - segmentStart
                if n == 1 || n == 2 {
                    if input[segmentStart] == 0x2E, n == 1 || input[segmentStart + 1] == 0x2E { return nil }
                }
                if i >= len || b != 0x2F { break }
                segmentStart = i + 1
            } else if b == 0x25 {
                // `/%6Cogout` serializes as itself: an escape is copied, only what it decodes to
                // (or a `%` that starts none) sends the URL to the state machine.
                guard i + 2 < len, let high = PercentEncodeSet.hexValue(input[i + 1]),
                    let low = PercentEncodeSet.hexValue(input[i + 2])
                else { return nil }
                let decoded = high << 4 | low
                if decoded == 0x2E || decoded == 0x2F || decoded == 0x5C { return nil }
                i += 2
            } else if b < 0x21 || b > 0x7E || b == 0x5C || PercentEncodeSet.path.contains(b) {
                return nil
            }
            i += 1
        }

        // Query, up to "#".
        var queryStart = -1
        if i < len, input[i] == 0x3F {
            queryStart = i
            i += 1
            while i < len, input[i] != 0x23 {
                let b = input[i]
                if b < 0x21 || b > 0x7E || PercentEncodeSet.specialQuery.contains(b) { return nil }
                i += 1
            }
        }

        // Fragment, to the end.
        var fragmentStart = -1
        if i < len, input[i] == 0x23 {
            fragmentStart = i
            i += 1
            while i < len {
                let b = input[i]
                if b < 0x21 || b > 0x7E || PercentEncodeSet.fragment.contains(b) { return nil }
                i += 1
            }
        }
        guard i == len else { return nil }

        return URLRecord(
            href: original, schemeKind: kind, schemeEnd: schemeEnd, authorityStart: authorityStart,
            usernameEnd: authorityStart, hostStart: authorityStart, hostEnd: hostEnd, hostTag: .domain,
            ipv4: 0, port: port, pathStart: pathStart, hasOpaquePath: false, queryStart: queryStart,
            fragmentStart: fragmentStart)
    }
}

extension URLRecord {
    /// For the fuzzer (FuzzTesting/Sources/FuzzURL): when the fast path accepts `input`, what
    /// the state machine made of it differently; nil when they agree or the fast path declined.
    /// The unit tests compare listed and random inputs; the fuzzer searches for the rest.
    package static func fastPathDisagreement(_ input: String) -> String? {
        var copy = input
        return copy.withUTF8 { buffer -> String? in
            guard let fast = URLParser.parseCanonicalHTTP(buffer, original: input) else { return nil }
            do throws(URLParseError) {
                let full = try URLParser.run(buffer, base: nil)
                return full == fast ? nil : "fast path \(fast.href) vs state machine \(full.href)"
            } catch {
                return "fast path accepted what the state machine refuses (\(error))"
            }
        }
    }
}
