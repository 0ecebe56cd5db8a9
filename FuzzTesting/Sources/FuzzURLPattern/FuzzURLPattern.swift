import JSONSupport
import NavigationPolicy

/// `match.urlPatterns` on a person's pattern and any URL (issue 31): the policy path against
/// the standard's own matching, the indexed chain against the linear one, the fast paths
/// against the regex engine, and the per-decision regexp budget.
///
/// Input: a mode byte, then NUL-separated pieces: a pathname pattern, a search pattern, a
/// hostname pattern, and the URL's path-and-query (after `https://a.example`, or after
/// `https://` when mode bit 0 is set: then it carries its own host). Mode bit 1: the pieces'
/// pattern text is repeated 8 times (long patterns); bit 2: the URL's text is repeated up to
/// 8 KiB (long inputs). Invariants beyond "no crash":
/// - a pattern the policy accepts has no regexp-group component over the state cap;
/// - every component's fast path gives the engine's match and groups, and the policy's
///   result-less test gives the explained match's answer, in both readings;
/// - a cancelling policy cancels every URL the standard's `exec` matches (the differential of
///   `URLPatternDifferentialTests`), and an explained decision agrees with the plain one;
/// - the indexed chain (8 handlers: the pattern among decoys) decides as the linear one;
/// - no decision takes more regexp steps than the budget (+1, the step that finds it spent), and
///   one that ran out fails closed: the cancelling policy cancels, the allow-list does not allow
///   by its pattern entry.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLPattern(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    guard let mode = bytes.first else { return 0 }
    var pieces = bytes.dropFirst().split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    while pieces.count < 4 { pieces.append("") }
    let repeatPattern = mode & 2 != 0
    func patternText(_ text: String) -> String { repeatPattern ? String(repeating: text, count: 8) : text }
    let pathname = patternText(pieces[0].isEmpty ? "*" : pieces[0])
    let search = patternText(pieces[1].isEmpty ? "*" : pieces[1])
    let hostname = pieces[2].isEmpty ? "*" : pieces[2]
    var tail = pieces[3]
    if mode & 4 != 0, !tail.isEmpty { tail = String(repeating: tail, count: max(1, 8_192 / tail.utf8.count)) }
    let url = (mode & 1 != 0 ? "https://" : "https://a.example") + tail

    let initValue = URLPatternInit(hostname: hostname, pathname: pathname, search: search)
    var writer = JSONWriter()
    writer.write(URLPatternInput.dictionary(initValue).json)
    let entry = writer.string
    guard let standard = try? URLPattern(.dictionary(initValue), options: URLPattern.Options(ignoreCase: true))
    else { return 0 }
    if !standard.fastPathsAgreeWithEngine(url) {
        fatalError("a fast path disagrees with the engine: \(entry) on \(url.prefix(200).debugDescription)")
    }
    guard let request = try? CanonicalRequest(NavigationRequest(url: url, method: "GET")) else { return 0 }
    for reading in [request, request.standardURLReading].compactMap({ $0 })
    where !standard.testAgreesWithMatch(reading) {
        fatalError("the policy's test disagrees with the explained match: \(entry) on \(url.prefix(200).debugDescription)")
    }

    let budget = Decision.regexpStepBudget
    for type in ["cancel", "allow"] {
        let fallback = type == "cancel" ? "allow" : "cancel"
        let decoys = (0..<7).map {
            #"{"name": "d\#($0)", "type": "cancel", "match": {"urlPatterns": [{"hostname": "d\#($0).example", "pathname": "/d\#($0)/*"}]}}"#
        }
        let config =
            #"{"defaultDecision": "\#(fallback)", "handlers": [\#(decoys.joined(separator: ",")), {"name": "p", "type": "\#(type)", "match": {"urlPatterns": [\#(entry)]}}]}"#
        let policy: CompiledPolicy
        do {
            policy = try PolicyCompiler().compile(Array(config.utf8))
        } catch {
            if standard.oversizedRegexpComponentStates == nil {
                fatalError("a pattern the standard accepts within the cap is refused: \(entry): \(error)")
            }
            return 0
        }
        if let states = standard.oversizedRegexpComponentStates {
            fatalError("a component of \(states) states passed the cap: \(entry)")
        }
        let decided = policy.decide(request)
        let explained = policy.decide(request, explain: true)
        guard decided.verdict == explained.verdict, decided.handler == explained.handler else {
            fatalError("explain disagrees with decide: \(entry) on \(request.href.prefix(200).debugDescription)")
        }
        guard policy.decideLinearAllReadings(request) == decided else {
            fatalError("indexed and linear chains disagree: \(entry) on \(request.href.prefix(200).debugDescription)")
        }
        let steps = explained.regexpSteps ?? 0
        if steps > budget + 1 {
            fatalError("\(steps) regexp steps over the budget of \(budget): \(entry) on \(request.href.prefix(200))")
        }
        let exhausted = explained.regexpBudgetExhausted == true
        if type == "cancel" {
            // A pattern the standard matches must cancel; so must one the budget could not decide.
            let matchedByStandard = (try? standard.exec(.string(url))).map { $0 != nil } ?? false
            if (matchedByStandard || exhausted) && decided.verdict != .cancel {
                fatalError(
                    "the cancelling policy allowed \(request.href.prefix(200)) that \(entry) matches (exhausted: \(exhausted))")
            }
        } else if exhausted, decided.handler == "p", !standard.matchesWithoutBudget(request) {
            fatalError("the allow-list allowed \(request.href.prefix(200)) undecided within the budget: \(entry)")
        }
    }
    return 0
}
