/// Package-only checks for the fuzz target `FuzzURLPattern` (and tests): the fast paths against
/// the engine, the config cap, and a match without the decision budget.
extension URLPattern {
    /// Whether every component's fast path (``URLPatternFastPath``) or one-pass matcher gives
    /// the Pike VM's result on `url`'s component strings (true when `url` does not parse).
    package func fastPathsAgreeWithEngine(_ url: String) -> Bool {
        guard let record = try? URLRecord.parse(url) else { return true }
        let values = Self.componentValues(record)
        for (index, component) in components.enumerated() where component.fastPath != nil || component.runsOnePass {
            let value = index < values.count ? values[index] : ""
            if component.exec(value) != component.engineExec(value) { return false }
        }
        return true
    }

    /// The states of the first component a policy refuses by the regexp-group cap
    /// (``URLPatternStepBudget/maxRegexpComponentStates``); nil when none.
    package var oversizedRegexpComponentStates: Int? {
        // On the pattern as a policy compiles it: decoded fixed text can have fewer states.
        ((try? withMatchForms()) ?? self).oversizedRegexpComponent(maxStates: URLPatternStepBudget.maxRegexpComponentStates)?
            .states
    }

    /// Whether the pattern, as a policy compiles it, matches `request` in match form or as the
    /// standard reads it, with no step budget (a reference for what the budget may refuse).
    package func matchesWithoutBudget(_ request: CanonicalRequest) -> Bool {
        let pattern = (try? withMatchForms()) ?? self
        let readings = [request, request.standardURLReading].compactMap { $0 }
        return readings.contains { reading in
            if case .matched = pattern.matchOutcome(reading, budget: URLPatternStepBudget(steps: .max)) { return true }
            return false
        }
    }
}

extension URLPattern {
    /// Whether the policy path's answer (``test(_:budget:matchForm:)``, no result built) is the
    /// explained one's (``match(_:inputs:budget:matchForm:)``) for `request` in its reading,
    /// each with a budget of its own (both stop at the same step, or neither does).
    package func testAgreesWithMatch(_ request: CanonicalRequest) -> Bool {
        let pattern = (try? withMatchForms()) ?? self
        let values = Self.values(of: request)
        let matchForm = !request.readsURLAsStandard
        let tested = pattern.test(values, budget: URLPatternStepBudget(), matchForm: matchForm)
        switch pattern.match(values, inputs: [], budget: URLPatternStepBudget(), matchForm: matchForm) {
        case .matched: return tested == true
        case .unmatched: return tested == false
        case .undecided: return tested == nil
        }
    }
}
