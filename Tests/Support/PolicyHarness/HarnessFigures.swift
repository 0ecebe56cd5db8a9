/// What a harness run checked and what it found.
public struct HarnessFigures: Sendable {
    public var policies = 0
    public var requests = 0
    /// Engines each request was decided by (the reference included).
    public var engines = 0
    /// Engine decisions compared with the reference's.
    public var decisionsCompared = 0
    /// Claims of the analysis checked, by kind (``AnalysisClaims``).
    public var claims: [String: Int] = [:]
    /// Claims the analysis left unknown (allowed, counted).
    public var unknownClaims = 0
    /// Every disagreement: an engine deciding unlike the reference, a claim a request refutes,
    /// a counterexample that decides alike. Empty in a passing run.
    public var disagreements: [String] = []

    public init() {}

    public var claimsChecked: Int { claims.values.reduce(0, +) }

    mutating func record(_ disagreement: String) {
        // The first few say what is wrong; the count says how much.
        if disagreements.count < 40 {
            disagreements.append(disagreement)
        } else if disagreements.count == 40 {
            disagreements.append("… more disagreements left out")
        }
    }

    mutating func count(claim kind: String) { claims[kind, default: 0] += 1 }

    /// `policies × requests × engines`, the claims by kind, and the disagreements: the line a run prints.
    public var summary: String {
        let kinds = claims.keys.sorted().map { "\($0) \(claims[$0] ?? 0)" }.joined(separator: ", ")
        return "policy harness: \(policies) policies × \(requests) requests × \(engines) engines "
            + "(\(decisionsCompared) decisions compared with the linear scan); \(claimsChecked) analysis claims checked"
            + (kinds.isEmpty ? "" : " (\(kinds))") + ", \(unknownClaims) unknown; \(disagreements.count) disagreements"
    }
}
