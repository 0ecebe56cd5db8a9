/// The regexp work one policy decision may do, over every `match.urlPatterns` component
/// expression it runs in every reading (issue 31, the outside attack's `(?:a?){5000}b`).
///
/// The Pike VM is linear, but linear in states × input, and a decision may run many
/// expressions: this caps their sum. A run that would pass the budget stops without an answer
/// and the decision fails closed (``URLPatternMatchOutcome/undecided``: a cancelling handler
/// counts as matched, an allowing one as not). A class because one decision's readings share
/// it; a decision makes its own (``CanonicalRequest/withFreshRegexBudget()``) and runs on one
/// thread, so it is never mutated concurrently.
package final class URLPatternStepBudget: @unchecked Sendable {
    /// Steps (``ECMARegex/exec(_:stepLimit:)``) all regexp runs of one decision may take
    /// together: ≈ 1 ms of VM work in a release build here (see docs/security.md).
    package static let stepsPerDecision = 50_000

    /// Matcher states the expression of a component with a regexp group `(…)` may compile to in
    /// a policy (every component but `port`, whose input is at most 5 digits, can be as long as
    /// the URL). A bigger program cannot finish a run over even ~100 scalars within
    /// ``stepsPerDecision``, so such a pattern would fail closed on nearly every URL it is asked
    /// about: it is refused when the config is loaded instead.
    package static let maxRegexpComponentStates = 250

    /// Steps left for this decision.
    private(set) var remaining: Int
    /// Whether a run was stopped for want of steps (the decision failed closed somewhere).
    package private(set) var exhausted = false

    /// Steps the budget started with.
    private let initial: Int

    package init(steps: Int = stepsPerDecision) {
        remaining = steps
        initial = steps
    }

    /// Steps taken so far.
    package var spent: Int { initial - remaining }

    /// The component strings of the reading last asked for (the engine's ``values(for:)``,
    /// which knows the request) and its key: the readings of one decision differ in their path,
    /// their standard flag, a decoded path's standard pathname, or the port (the engine's
    /// client-port reading).
    package var cachedValues: (standard: Bool, path: MatchPath, pathname: String?, port: UInt16?, values: [String])?

    /// Runs `regex` on `input` within what is left; nil = stopped at the budget.
    func exec(_ regex: ECMARegex, _ input: String) -> [String?]?? {
        guard !exhausted else { return .none }
        let run = regex.exec(input, stepLimit: remaining)
        remaining -= min(run.steps, remaining)
        if run.exceeded {
            exhausted = true
            return .none
        }
        return .some(run.result)
    }

    /// Whether `regex` matches `input`, run within what is left (``ECMARegex/matches(_:stepLimit:)``:
    /// no group strings); nil = stopped at the budget.
    func matches(_ regex: ECMARegex, _ input: String) -> Bool? {
        guard !exhausted else { return nil }
        let run = regex.matches(input, stepLimit: remaining)
        remaining -= min(run.steps, remaining)
        guard let matched = run.matched else {
            exhausted = true
            return nil
        }
        return matched
    }
}

/// A match under a step budget: the match, no match, or stopped at the budget (which the
/// caller must read the way that fails closed, never as "no match" by default).
package enum URLPatternMatchOutcome {
    case matched(URLPatternResult)
    case unmatched
    case undecided
}
