public import NavigationPolicy

/// One engine the harness decides with: a name and how to build its decide function from a
/// generated policy. Each engine's adapter is one small file (`…Engine.swift`), so a change to
/// how an engine is built touches only its adapter.
public struct HarnessEngine: Sendable {
    /// Decides a request; nil when the request is refused (invalid input is never decided).
    public typealias Decide = @Sendable (NavigationRequest) -> Decision?

    public let name: String
    public let build: @Sendable (PolicyCase) throws -> Decide

    public init(name: String, build: @escaping @Sendable (PolicyCase) throws -> Decide) {
        self.name = name
        self.build = build
    }
}

/// A generated policy that did not build on an engine (a harness or engine error: every
/// generated policy is valid config).
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// What the engines must agree on: the verdict, the deciding handler, action, location and
/// url, and the shadow handlers that would have decided.
public struct DecisionOutcome: Equatable, Sendable, CustomStringConvertible {
    public var verdict: Decision.Verdict
    public var handler: String?
    public var action: String?
    public var location: String?
    public var url: String
    public var shadow: [String]
    /// The deciding handler's denial shaping: part of what a front end answers, so every
    /// engine must carry it (an image or bundle that dropped it would answer 403 for a 410).
    public var response: DenialResponse?

    public init(_ decision: Decision) {
        verdict = decision.verdict
        handler = decision.handler
        action = decision.action
        location = decision.location
        url = decision.url
        shadow = decision.shadow?.map(\.handler) ?? []
        response = decision.response
    }

    public var description: String {
        "\(verdict.rawValue) by \(handler ?? "defaultDecision") action \(action ?? "-") location \(location ?? "-") url \(url)"
            + (shadow.isEmpty ? "" : " shadow \(shadow)")
            + (response.map { " response status \($0.status.map(String.init) ?? "-") headers \($0.headers.map(\.name))" } ?? "")
    }
}
