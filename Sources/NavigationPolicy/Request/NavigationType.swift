/// How a navigation was started, as WKWebView's `WKNavigationType` names it.
public enum NavigationType: String, CaseIterable, Sendable, Hashable {
    case linkActivated
    case formSubmitted
    case backForward
    case reload
    case formResubmitted
    case other
}

/// Which frame a navigation loads into: the top-level page or an iframe.
public enum TargetFrame: String, CaseIterable, Sendable, Hashable {
    case main
    case sub
}

extension CaseIterable where Self: RawRepresentable, RawValue == String {
    /// The accepted spellings, for error messages: `"linkActivated", "formSubmitted", …`.
    static var acceptedValuesList: String {
        allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    }
}
