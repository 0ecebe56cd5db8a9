internal import JSONSupport

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
    /// The case spelt `text` byte for byte, or nil: `init(rawValue:)` compares strings by
    /// canonical equivalence, quadratic in a hostile value's run of combining marks (outside
    /// attack 14, R1), and would take a spelling only equivalent to a case's.
    package static func spelled(_ text: String) -> Self? {
        allCases.first { $0.rawValue.hasSameUTF8(as: text) }
    }

    /// The accepted spellings, for error messages: `"linkActivated", "formSubmitted", …`.
    package static var acceptedValuesList: String {
        allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    }
}
