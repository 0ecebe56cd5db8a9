import NavigationPolicy

/// A policy JavaScript holds, with the names its decisions have carried so far: a decision
/// through `navpolicy_decide_fields` names its handler and action by index, and JavaScript
/// reads each name once (`navpolicy_policy_name`) and keeps it beside the policy.
final class LoadedPolicy {
    let policy: CompiledPolicy
    /// Handler and action names, in the order decisions first carried them.
    private(set) var names: [String] = []
    private var indexes: [String: Int32] = [:]

    init(_ policy: CompiledPolicy) { self.policy = policy }

    /// `name`'s index in ``names``, added on first sight. The names are the config's handler
    /// names and actions, so the list is bounded by the policy.
    func index(of name: String) -> Int32 {
        if let index = indexes[name] { return index }
        let index = Int32(truncatingIfNeeded: names.count)
        names.append(name)
        indexes[name] = index
        return index
    }
}
