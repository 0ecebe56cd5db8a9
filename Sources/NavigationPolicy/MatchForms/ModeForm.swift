import JSONSupport

/// A handler's `mode`: `enforce` (decides) or `shadow` (recorded, never decides).
enum ModeForm {
    static let description = MatchFormDescription(
        form: .mode, configKey: "mode", place: .link, field: nil, storage: ["isShadow"],
        normalisation: "\"enforce\" (the default) or \"shadow\", exactly",
        predicate: "a shadow link is evaluated and recorded in Decision.shadow, never decides", reads: .nothing,
        index: .notACondition, automaton: .none, image: .json, analysis: .linkMode)

    /// Whether a written mode is shadow; nil when it is neither mode. Compared by bytes: a
    /// `switch` on the string normalizes a hostile value first (outside attack 16, F4).
    static func isShadow(_ written: String) -> Bool? {
        if written.hasSameUTF8(as: "shadow") { return true }
        if written.hasSameUTF8(as: "enforce") { return false }
        return nil
    }
}
