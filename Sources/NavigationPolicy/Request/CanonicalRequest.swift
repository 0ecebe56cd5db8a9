/// A navigation request after canonicalization: what handlers see.
///
/// Built once per request. The URL is parsed with the WHATWG URL Standard (`href` is
/// what the decision reports), and the host and path are further reduced to their
/// comparison-only forms so that every handler matches against the same strings.
public struct CanonicalRequest: Sendable {
    /// The request as received.
    public let original: NavigationRequest
    /// The parsed URL.
    public let url: URLRecord
    /// The URL's serialization, reported as the decision's `url`.
    public var href: String {
        // Yielded from the record in place: a getter copied the whole record to return its string.
        _read { yield url.href }
    }
    /// The method in upper case.
    public let method: String
    /// The host for matching: serialized, ASCII lower case, one trailing dot removed; nil when the URL has no host.
    public var matchHost: String? { matchHostForm.map(String.init) }
    /// ``matchHost`` as matchers compare it: usually a slice of ``href``, so deciding allocates nothing for it.
    let matchHostForm: Substring?
    /// The path for matching, case preserved (see ``MatchPath``).
    public let matchPath: MatchPath
    /// The path's second reading, with `%2F` and `%5C` read as `/` (see
    /// ``MatchPath/decodedSeparatorForm(of:)``); nil when the path has no encoded separator,
    /// which is almost always, and then nothing was computed or allocated for it.
    public let decodedSeparatorPath: MatchPath?
    /// A third reading, for servers that decode `%2F`/`%5C` *before* they resolve dot segments:
    /// the URL as sent with those escapes read as `/`, parsed again. The WHATWG parser resolves
    /// `..` first, so `/public/x%2F../../secret` is `/public/secret` to it (and has no escape
    /// left for ``decodedSeparatorPath``), while such a server serves `/secret`. Nil unless the
    /// URL as sent has an encoded separator and this reading differs from the other two.
    public let rawDecodedSeparatorPath: MatchPath?
    /// Whether ``original`` has a ``NavigationRequest/urlWithoutClientPort``. Asked on every
    /// decision, so it is kept at hand: reading it through `original` copied the whole request.
    let hasURLWithoutClientPort: Bool
    /// Whether `match.urlPatterns` read the URL as the URLPattern standard does (WHATWG host and
    /// path) rather than in match form; true only in ``standardURLReading``.
    public let readsURLAsStandard: Bool
    /// The pathname `match.urlPatterns` read in a URLPattern-standard reading of a decoded
    /// path (``decodedSeparatorStandardReading``, ``rawDecodedSeparatorStandardReading``); nil
    /// in every other reading, where it is the URL's own (``standardPathname``).
    let decodedStandardPathname: String?
    /// The regexp steps `match.urlPatterns` may still take in this request's decision, shared by
    /// its readings; nil outside a decision (then each check gets a budget of its own).
    let regexBudget: URLPatternStepBudget?

    public var navigationType: NavigationType { original.navigationType }
    public var targetFrame: TargetFrame { original.targetFrame }
    public var scheme: String { url.scheme }

    /// Canonicalizes a request, or explains which field is invalid.
    public init(_ request: NavigationRequest) throws(NavigationRequestError) {
        guard request.url.utf8.count <= NavigationRequest.maximumURLLength else {
            throw NavigationRequestError(
                field: "url", reason: "URL is longer than \(NavigationRequest.maximumURLLength) bytes")
        }
        let parsed: URLRecord
        let isCanonicalHTTP: Bool
        do {
            (parsed, isCanonicalHTTP) = try URLRecord.parseNotingCanonicalInput(request.url)
        } catch {
            throw NavigationRequestError(field: "url", reason: "not a valid URL: \(error)")
        }
        guard let method = HTTPMethod.normalized(request.method) else {
            throw NavigationRequestError(
                field: "method", reason: "\"\(request.method)\" is not a valid HTTP method token")
        }
        if let portless = request.urlWithoutClientPort {
            // The same bound and parse as the URL's: the reading it makes is never skipped on a failure.
            guard portless.utf8.count <= NavigationRequest.maximumURLLength, (try? URLRecord.parse(portless)) != nil else {
                throw NavigationRequestError(field: "url", reason: "the URL without the client's port is not a valid URL")
            }
        }
        if let source = request.sourceURL {
            guard source.utf8.count <= NavigationRequest.maximumURLLength else {
                throw NavigationRequestError(
                    field: "sourceURL", reason: "URL is longer than \(NavigationRequest.maximumURLLength) bytes")
            }
            do {
                _ = try URLRecord.parse(source)
            } catch {
                throw NavigationRequestError(field: "sourceURL", reason: "not a valid URL: \(error)")
            }
        }
        self.hasURLWithoutClientPort = request.urlWithoutClientPort != nil
        self.method = method
        self.matchPath = MatchPath(parsed)
        if isCanonicalHTTP {
            // The canonical scan took the URL: its host is a lower-case domain without a
            // trailing dot, which is its own match form (``MatchHost/form(of:)`` would scan it to
            // find that out), and before its query it has no `%2F` or `%5C` (the scan refuses
            // them), so no encoded separator in its path or in the URL as sent: neither decoded
            // reading exists, and neither is looked for (`CanonicalInputReadingsTests` holds
            // both to the long way).
            self.matchHostForm = parsed.slice(parsed.hostStart, parsed.hostEnd)
            self.decodedSeparatorPath = nil
            self.rawDecodedSeparatorPath = nil
        } else {
            self.matchHostForm = MatchHost.form(of: parsed)
            let decoded = MatchPath.decodedSeparatorForm(of: parsed)
            self.decodedSeparatorPath = decoded
            let raw = MatchPath.rawDecodedSeparatorForm(of: request.url, parsed: parsed)
            self.rawDecodedSeparatorPath = raw == decoded || raw == matchPath ? nil : raw
        }
        self.readsURLAsStandard = false
        self.decodedStandardPathname = nil
        self.regexBudget = nil
        // Stored last, after their last reads: moved in rather than copied (a copy of the record
        // or of the request, and its release, cost ~70 and ~120 instructions a decision).
        self.url = parsed
        self.original = request
    }

    /// Whether the path has a decoded-separator reading (``decodedSeparatorPath`` or
    /// ``rawDecodedSeparatorPath``). Asked on every decision: matched against `.some` rather than
    /// compared with nil, which copied (retained and released) each optional path.
    var hasDecodedSeparatorReadings: Bool {
        if case .some = decodedSeparatorPath { return true }
        if case .some = rawDecodedSeparatorPath { return true }
        return false
    }

    /// This request with a new decision's regexp budget (``URLPatternStepBudget``), which the
    /// readings derived from it share.
    func withFreshRegexBudget() -> CanonicalRequest {
        CanonicalRequest(self, budget: URLPatternStepBudget())
    }

    /// The request as the client would have sent it on the scheme's default port
    /// (``NavigationRequest/urlWithoutClientPort``), every reading of its own kept, sharing this
    /// request's regexp budget; nil when no enforcement point marked the port as the client's,
    /// or when dropping it changes nothing (no port, or the default one).
    public var withoutClientPortReading: CanonicalRequest? {
        guard let portless = original.urlWithoutClientPort else { return nil }
        var request = original
        request.url = portless
        request.urlWithoutClientPort = nil
        // Parsed when this request was built (init), so this cannot fail; the guard only keeps `try?` honest.
        guard let reading = try? CanonicalRequest(request), reading.href != href else { return nil }
        return regexBudget.map { CanonicalRequest(reading, budget: $0) } ?? reading
    }

    /// `request` as it is, every reading kept, with `budget`.
    private init(_ request: CanonicalRequest, budget: URLPatternStepBudget) {
        self.original = request.original
        self.hasURLWithoutClientPort = request.hasURLWithoutClientPort
        self.url = request.url
        self.method = request.method
        self.matchHostForm = request.matchHostForm
        self.matchPath = request.matchPath
        self.decodedSeparatorPath = request.decodedSeparatorPath
        self.rawDecodedSeparatorPath = request.rawDecodedSeparatorPath
        self.readsURLAsStandard = request.readsURLAsStandard
        self.decodedStandardPathname = request.decodedStandardPathname
        self.regexBudget = budget
    }

    /// The request as `match.urlPatterns` reads it under the URLPattern standard: the WHATWG
    /// host, path and query instead of their match forms (every other condition reads as
    /// before); nil when the two forms are the same, which is the usual case. A policy with `urlPatterns`
    /// decides this reading too, and the one that cancels wins (``URLPatternCondition``).
    public var standardURLReading: CanonicalRequest? {
        standardReading(url.pathname, matchPath: matchPath, decoded: false)
    }

    /// The match form's path with the trailing `/` the match form drops, as `match.urlPatterns`
    /// read it: `/%61dmin/`, `/admin;x/`, `//admin/;` and `/x/..;/admin/` are `/admin` in match
    /// form (which `/admin/*` does not match) and keep their escape, parameter or empty segment
    /// in the standard form, while a server that decodes them serves `/admin/` (round 4's
    /// outside attacks). Nil unless the pathname's last segment is empty once its `;`
    /// parameters are gone, and this spelling is not already the standard reading's.
    public var matchFormSlashReading: CanonicalRequest? {
        slashReading(pathname: url.pathname, matchPath: matchPath)
    }

    /// The same for the decoded readings (``decodedSeparatorReading``,
    /// ``rawDecodedSeparatorReading``): `/%2Fadmin/` is `//admin/` decoded and `/admin` in
    /// decoded match form, `/admin/` to a server that decodes it. Empty unless the URL has an
    /// encoded separator.
    public var decodedMatchFormSlashReadings: [CanonicalRequest] {
        guard decodedSeparatorPath != nil || rawDecodedSeparatorPath != nil else { return [] }
        var readings: [CanonicalRequest] = []
        if let decodedSeparatorPath, let pathname = MatchPath.decodedSeparatorPathname(of: url),
            let reading = slashReading(pathname: pathname, matchPath: decodedSeparatorPath)
        {
            readings.append(reading)
        }
        if let reparsed = MatchPath.rawDecodedSeparatorURL(of: original.url, parsed: url),
            let reading = slashReading(pathname: reparsed.pathname, matchPath: MatchPath(reparsed))
        {
            readings.append(reading)
        }
        return readings
    }

    /// The reading in which `match.urlPatterns` see `matchPath` with a trailing `/`, when
    /// `pathname` (the same path before normalizing) ended in an empty segment.
    private func slashReading(pathname: String, matchPath: MatchPath) -> CanonicalRequest? {
        guard matchPath.textForm != "/", Self.endsInEmptySegment(pathname) else { return nil }
        let slashed = matchPath.text + "/"
        guard slashed != pathname else { return nil }
        return standardReading(slashed, matchPath: matchPath, decoded: true)
    }

    /// Whether the last segment of `pathname` is empty once its `;` parameters are stripped
    /// (`/a/`, `/a/;`, `/a;x/;y`): the segment the match form drops.
    static func endsInEmptySegment(_ pathname: String) -> Bool {
        var bytes = pathname.utf8[...]
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return false }
        bytes = bytes[bytes.index(after: slash)...]
        return bytes.first.map { $0 == UInt8(ascii: ";") } ?? true
    }

    /// Every reading of this request besides itself, in the order ``CompiledPolicy`` combines
    /// them (the decoded-separator readings, then, when the policy has `match.urlPatterns`, the
    /// standard and trailing-slash readings): what "a match holds on some reading" means. The
    /// engine walks the same readings without building this array (its hot path allocates
    /// nothing); `ReadingsListTests` holds the two to each other.
    package func otherReadings(forURLPatterns urlPatterns: Bool) -> [CanonicalRequest] {
        var readings = [decodedSeparatorReading, rawDecodedSeparatorReading].compactMap { $0 }
        guard urlPatterns else { return readings }
        readings += [standardURLReading, matchFormSlashReading].compactMap { $0 }
        readings += [decodedSeparatorStandardReading, rawDecodedSeparatorStandardReading].compactMap { $0 }
        return readings + decodedMatchFormSlashReadings
    }

    /// The pathname `match.urlPatterns` read in a URLPattern-standard reading: the URL's own,
    /// or, in a decoded path's standard reading, that path as the standard spells it.
    public var standardPathname: String { decodedStandardPathname ?? url.pathname }

    /// The decoded-separator reading (``decodedSeparatorReading``) as `match.urlPatterns` read
    /// it under the URLPattern standard: the pathname with `%2F`/`%5C` read as `/` and dot
    /// segments resolved again, a trailing `/` kept (``MatchPath/decodedSeparatorPathname(of:)``),
    /// with the WHATWG host and query. The match form drops a trailing `/` (`/admin%2F` is
    /// `/admin` there), which `/admin/*` does not match, while a server that decodes `%2F`
    /// serves `/admin/`: this is the reading that sees it so, as ``standardURLReading`` does
    /// for a path without such an escape. Every other condition reads the decoded match form.
    /// Nil when the path has no encoded separator, or when this reading reads as the decoded
    /// one does (same path, host and query).
    public var decodedSeparatorStandardReading: CanonicalRequest? {
        guard let decodedSeparatorPath, let pathname = MatchPath.decodedSeparatorPathname(of: url) else { return nil }
        return standardReading(pathname, matchPath: decodedSeparatorPath, decoded: true)
    }

    /// The same for the reading decoded before dot segments are resolved
    /// (``rawDecodedSeparatorReading``): the URL as sent with `%2F`/`%5C` read as `/`, parsed
    /// again, its pathname as the parser leaves it. Looked at whenever the URL has a decoded
    /// reading, even when that reading's match form is another's (then nil here only when this
    /// pathname also is that other reading's).
    public var rawDecodedSeparatorStandardReading: CanonicalRequest? {
        guard decodedSeparatorPath != nil || rawDecodedSeparatorPath != nil,
            let reparsed = MatchPath.rawDecodedSeparatorURL(of: original.url, parsed: url)
        else { return nil }
        let pathname = reparsed.pathname
        let matchPath = MatchPath(reparsed)
        // Already read: as the plain request's standard reading, or as the decoded one's.
        if matchPath == self.matchPath && pathname == url.pathname { return nil }
        if matchPath == decodedSeparatorPath && pathname == MatchPath.decodedSeparatorPathname(of: url) { return nil }
        return standardReading(pathname, matchPath: matchPath, decoded: true)
    }

    /// The reading in which `match.urlPatterns` see `pathname` with the WHATWG host and query,
    /// every other condition `matchPath` (a decoded path's when `decoded`); nil when that is
    /// how the match form already reads, which is the usual case.
    private func standardReading(_ pathname: String, matchPath: MatchPath, decoded: Bool) -> CanonicalRequest? {
        let sameHost = matchHostForm.map { $0 == url.hostname } ?? url.hostname.isEmpty
        // The query differs when an escape decodes (``URLPattern/matchFormQuery(_:)``).
        let sameQuery = url.query.map { URLPattern.matchFormQuery($0) == $0 } ?? true
        guard !sameHost || matchPath.textForm != pathname || !sameQuery else { return nil }
        return CanonicalRequest(
            self, matchPath: matchPath, readsURLAsStandard: true, decodedStandardPathname: decoded ? pathname : nil,
            budget: regexBudget)
    }

    /// The same request read the second way: ``matchPath`` is the decoded-separator form (and
    /// there is no further reading); nil when the path has only one reading. The URL, `href`
    /// and everything else stay as they are, so location templates and the decision's `url`
    /// do not change with the reading.
    public var decodedSeparatorReading: CanonicalRequest? {
        guard let decodedSeparatorPath else { return nil }
        return CanonicalRequest(self, matchPath: decodedSeparatorPath, budget: regexBudget)
    }

    /// The request read the third way (``rawDecodedSeparatorPath``); nil when there is none.
    public var rawDecodedSeparatorReading: CanonicalRequest? {
        guard let rawDecodedSeparatorPath else { return nil }
        return CanonicalRequest(self, matchPath: rawDecodedSeparatorPath, budget: regexBudget)
    }

    private init(
        _ request: CanonicalRequest, matchPath: MatchPath, readsURLAsStandard: Bool = false,
        decodedStandardPathname: String? = nil, budget: URLPatternStepBudget?
    ) {
        self.readsURLAsStandard = readsURLAsStandard
        self.decodedStandardPathname = decodedStandardPathname
        self.regexBudget = budget
        self.original = request.original
        self.hasURLWithoutClientPort = request.hasURLWithoutClientPort
        self.url = request.url
        self.method = request.method
        self.matchHostForm = request.matchHostForm
        self.matchPath = matchPath
        self.decodedSeparatorPath = nil
        self.rawDecodedSeparatorPath = nil
    }
}
