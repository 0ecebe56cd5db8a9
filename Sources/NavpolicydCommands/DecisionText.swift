import NavigationPolicy

/// `check --format text`: a decision as aligned lines for a person, coloured on a terminal.
enum DecisionText {
    static func print(_ decision: Decision, to output: Output) {
        let style = TerminalStyle(enabled: output.usesColour)
        let verdict = decision.verdict == .allow ? style.green("allow") : style.red("cancel")
        let rows: [(String, String)] = [
            ("decision", verdict), ("handler", decision.handler ?? "(default)"), ("action", decision.action ?? "-"),
            ("location", decision.location ?? "-"), ("url", decision.url),
        ]
        for (label, value) in rows { output.out(style.bold(label.padding(toLength: 9, withPad: " ", startingAt: 0)) + value) }
        for shadow in decision.shadow ?? [] {
            output.out(
                style.bold("shadow   ") + "\(shadow.handler) would \(shadow.verdict.rawValue)"
                    + (shadow.action.map { " (\($0))" } ?? ""))
        }
        if let pathReading = decision.pathReading { output.out(style.bold("reading  ") + pathReading) }
        guard let trace = decision.trace else { return }
        output.out(style.bold("trace"))
        for step in trace {
            output.out(
                "  \(step.outcome.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(step.handler): \(step.reason)")
        }
    }
}
