import NavigationPolicy

/// A policy JavaScript holds, with the names its decisions have carried so far: a decision
/// through `navpolicy_decide_fields` names its handler and action by index, and JavaScript
/// reads each name once (`navpolicy_policy_name`) and keeps it beside the policy.
final class LoadedPolicy {
    let policy: CompiledPolicy
    /// Handler and action names, in the order decisions first carried them.
    private(set) var names: [String] = []
    private var indexes: [String: Int32] = [:]
    /// The last index found for a name of each UTF-8 length modulo 8, as a name's position in
    /// ``names`` (-1 for none). A decision's handler and action are the config's own strings,
    /// so `==` with the name stored here is an identity check, where the dictionary hashed
    /// the name on every decision (4% of one in the profile, docs/performance.md).
    private var recent = [Int32](repeating: -1, count: 8)

    init(_ policy: CompiledPolicy) { self.policy = policy }

    /// `name`'s index in ``names``, added on first sight. The names are the config's handler
    /// names and actions, so the list is bounded by the policy.
    func index(of name: String) -> Int32 {
        let slot = name.utf8.count & 7
        let last = recent[slot]
        if last >= 0, names[Int(last)] == name { return last }
        let index = indexes[name] ?? add(name)
        recent[slot] = index
        return index
    }

    private func add(_ name: String) -> Int32 {
        let index = Int32(truncatingIfNeeded: names.count)
        names.append(name)
        indexes[name] = index
        return index
    }
}
