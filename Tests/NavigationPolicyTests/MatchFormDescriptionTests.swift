import JSONSupport
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// One example of a form: a handler stating it, a request it decides and one it passes (and
/// the field that passes it), or for a form that is no condition, a policy and what it decides.
private enum FormSample {
    case match(String, matching: NavigationRequest, passing: NavigationRequest, failsAs: RequestMatcher.Field?)
    case policy(String, NavigationRequest, check: @Sendable (Decision) -> Bool)
}

/// The example of each form. Exhaustive on purpose: a new ``MatchForm`` does not compile here
/// until it has one, and every check below then holds the engines to its description.
private func sample(_ form: MatchForm) -> FormSample {
    func url(_ text: String) -> NavigationRequest { NavigationRequest(url: text) }
    switch form {
    case .schemes:
        return .match(
            #"{"schemes": ["https"]}"#, matching: url("https://a.example/"), passing: url("http://a.example/"),
            failsAs: .schemes)
    case .hostNames:
        return .match(
            #"{"hosts": ["pay.example.com"]}"#, matching: url("https://PAY.example.com/x"),
            passing: url("https://pay.example.org/x"), failsAs: .hosts)
    case .hostSuffixes:
        return .match(
            #"{"hosts": ["*.example.com"]}"#, matching: url("https://a.example.com/"), passing: url("https://example.com/"),
            failsAs: .hosts)
    case .hostRanges:
        return .match(
            #"{"hosts": ["10.0.0.0/8"]}"#, matching: url("http://0xa.1/"), passing: url("http://11.0.0.1/"), failsAs: .hosts)
    case .hostClasses:
        return .match(
            #"{"hosts": ["@loopback"]}"#, matching: url("http://a.localhost/"), passing: url("http://8.8.8.8/"),
            failsAs: .hosts)
    case .paths:
        return .match(
            #"{"paths": ["/logout"]}"#, matching: url("https://a.example/Logout/"),
            passing: url("https://a.example/logout/x"), failsAs: .paths)
    case .pathPrefixes:
        return .match(
            #"{"pathPrefixes": ["/admin"]}"#, matching: url("https://a.example/admin/users"),
            passing: url("https://a.example/administrator"), failsAs: .pathPrefixes)
    case .pathPatterns:
        return .match(
            #"{"pathPatterns": ["/api/*/secret"]}"#, matching: url("https://a.example/api/v1/secret"),
            passing: url("https://a.example/api/v1/public"), failsAs: .pathPatterns)
    case .urlPatterns:
        return .match(
            #"{"urlPatterns": ["https://*.example.com/pay/*"]}"#, matching: url("https://a.example.com/pay/now"),
            passing: url("https://a.example.com/other"), failsAs: .urlPatterns)
    case .methods:
        return .match(
            #"{"methods": ["GET"]}"#, matching: NavigationRequest(url: "https://a.example/", method: "HEAD"),
            passing: NavigationRequest(url: "https://a.example/", method: "POST"), failsAs: .methods)
    case .navigationTypes:
        return .match(
            #"{"navigationTypes": ["formSubmitted"]}"#,
            matching: NavigationRequest(url: "https://a.example/", navigationType: .formSubmitted),
            passing: NavigationRequest(url: "https://a.example/", navigationType: .linkActivated),
            failsAs: .navigationTypes)
    case .targetFrames:
        return .match(
            #"{"targetFrames": ["sub"]}"#, matching: NavigationRequest(url: "https://a.example/", targetFrame: .sub),
            passing: NavigationRequest(url: "https://a.example/", targetFrame: .main), failsAs: .targetFrames)
    case .caseSensitive:
        // No condition of its own: it makes `paths` compare letters exactly.
        return .match(
            #"{"caseSensitive": true, "paths": ["/Logout"]}"#, matching: url("https://a.example/Logout"),
            passing: url("https://a.example/logout"), failsAs: .paths)
    case .mode:
        return .policy(
            #"{"handlers": [{"name": "h", "type": "cancel", "mode": "shadow"}]}"#, url("https://a.example/"),
            check: { $0.verdict == .allow && $0.shadow?.count == 1 })
    case .defaultDecision:
        return .policy(
            #"{"defaultDecision": "cancel", "handlers": []}"#, url("https://a.example/"),
            check: { $0.verdict == .cancel && $0.action == "block" && $0.handler == nil })
    case .action:
        return .policy(
            #"{"handlers": [{"name": "h", "type": "cancel", "action": "deny"}]}"#, url("https://a.example/"),
            check: { $0.verdict == .cancel && $0.action == "deny" })
    case .location:
        return .policy(
            #"{"handlers": [{"name": "h", "type": "payment-redirect", "location": "https://c.example/open"}]}"#,
            url("https://a.example/"), check: { $0.location == "https://c.example/open" })
    case .response:
        // The image keeps the handler's JSON: a compile or image that dropped `response` fails here.
        return .policy(
            #"{"handlers": [{"name": "h", "type": "cancel", "response": {"status": 451, "headers": {"Link": "<https://l.example/>"}, "removeRequestHeaders": ["Cookie"]}}]}"#,
            url("https://a.example/"),
            check: {
                $0.response?.status == 451 && $0.response?.headers.first?.name == "link"
                    && $0.response?.removeRequestHeaders == ["cookie"]
            })
    }
}

private func policy(match: String) -> String {
    #"{"handlers": [{"name": "h", "type": "cancel", "match": "# + match + "}]}"
}

@Suite("Match forms: one description per form, every engine held to it")
struct MatchFormDescriptionTests {
    @Test("every form's description names it, and match keys and explain fields come from the descriptions")
    func descriptionsAreComplete() {
        for form in MatchForm.allCases {
            #expect(form.description.form == form, "\(form)")
            #expect(!form.description.storage.isEmpty, "\(form)")
        }
        // Derived, in the order diagnostics and random policies rely on.
        #expect(
            RequestMatcher.keys == [
                "schemes", "hosts", "paths", "pathPrefixes", "pathPatterns", "urlPatterns", "methods", "navigationTypes",
                "targetFrames", "caseSensitive",
            ])
        #expect(StreamedMatchLists.keys == ["hosts", "pathPrefixes"])
        for field in RequestMatcher.Field.allCases {
            #expect(!MatchForm.forms(of: field).isEmpty, "explain field \(field) has no form")
        }
        #expect(MatchForm.fieldOrder == RequestMatcher.Field.allCases)
    }

    @Test("every stored field of a match block, a link, a policy and a handler is a form's, or bookkeeping")
    func storageIsDescribed() throws {
        func stored(_ value: Any) -> Set<String> { Set(Mirror(reflecting: value).children.compactMap(\.label)) }
        func described(_ place: MatchFormDescription.Place) -> Set<String> {
            Set(MatchForm.allCases.filter { $0.description.place == place }.flatMap(\.description.storage))
        }
        let compiled = try compile(
            #"{"handlers": [{"name": "p", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]}}]}"#)
        let link = try #require(compiled.links.first)
        // What holds no form: the chain, names and the handler itself, derived indexes, explain's entries.
        #expect(stored(link.matcher.conditions).subtracting(described(.match)) == ["entries"])
        #expect(stored(link).subtracting(described(.link)) == ["name", "type", "matcher", "handler"])
        #expect(
            stored(compiled).subtracting(described(.policy))
                == ["links", "sections", "index", "patterns", "hasURLPatterns"])
        let behavior = try #require(Mirror(reflecting: link.handler).children.first { $0.label == "behavior" }?.value)
        #expect(stored(link.handler).union(stored(behavior)).subtracting(described(.handler)) == ["name"])
    }

    @Test("each engine's part of every form agrees with the form's description", arguments: MatchForm.allCases)
    func enginesFollowDescriptions(_ form: MatchForm) throws {
        let description = form.description
        #expect(HandlerTables.encoding(form) == description.image, "image: \(form)")
        #expect(AnalysisDomain.model(of: form) == description.analysis, "analysis: \(form)")
        switch sample(form) {
        case .policy(let config, let request, let check):
            #expect(description.place != .match)
            let decision = try compile(config).decide(request)
            #expect(check(decision), "\(form): \(decision)")
            let image = try loadImage(try compileImage(config, threshold: 1))
            #expect(check(try image.decide(request)), "\(form) from an image")
        case .match(let match, let matching, let passing, let failsAs):
            #expect(description.place == .match)
            let compiled = try compile(policy(match: match))
            let matcher = try #require(compiled.links.first).matcher
            let inside = try CanonicalRequest(matching)
            let outside = try CanonicalRequest(passing)
            // The linear scan: the reference predicate holds inside, and outside fails the form's field.
            #expect(matcher.firstMismatch(inside) == nil, "\(form)")
            #expect(matcher.firstMismatch(outside) == failsAs, "\(form)")
            for entry in matcher.entries where description.field == entry.field {
                #expect(matcher.entryMatches(entry, inside), "\(form): \(entry.label)")
                #expect(!matcher.entryMatches(entry, outside), "\(form): \(entry.label)")
            }
            // The index files the handler under the form when the description keys it.
            let filed = ChainIndex(links: compiled.links).filedUnder.first ?? nil
            switch description.index {
            case .keyed: #expect(filed == description.field, "index: \(form)")
            case .checkedOnCandidates: #expect(filed == nil, "index: \(form)")
            case .notACondition: break
            }
            // The automaton takes words from the forms whose description says so.
            let words = ChainPatterns.words(of: form, in: matcher)
            #expect(words.isEmpty == (description.automaton == .none), "automaton: \(form)")
            // The image, with every list a table where the form has one, decides alike.
            let image = try loadImage(try compileImage(policy(match: match), threshold: 1))
            for request in [matching, passing] {
                #expect(try image.decide(request).verdict == compiled.decide(request).verdict, "image: \(form)")
            }
            // The analysis cuts the form's axis.
            if case .regions(let reading) = description.analysis, let axis = AnalysisDomain.axis(of: reading) {
                #expect(AnalysisDomain(matchers: [matcher]).boxes[0][axis] != nil, "analysis: \(form)")
            }
        }
    }
}
