import NavigationPolicy
import PolicyService

/// The settings of every section the daemon reads (``DaemonSection/registered``: its own, then
/// each listener kind's) that a policy file results in, defaults included, so `validate` shows
/// what a missing field means instead of leaving the reader to guess.
enum EffectiveSettings {
    static func sections(
        _ policy: CompiledPolicy, of sections: [DaemonSection] = DaemonSection.registered
    ) -> [(name: String, fields: [(String, String)])] {
        sections.map { ($0.name, fields(of: $0.settings(policy))) }
    }

    /// Stored properties by reflection: new settings show up without touching this file. A
    /// nested settings group (`server.bundle`, `proxy.connect`) shows as its fields, `bundle.maxAgeSeconds`.
    private static func fields(of value: Any) -> [(String, String)] {
        Mirror(reflecting: value).children.flatMap { child -> [(String, String)] in
            guard let label = child.label else { return [] }
            if child.value is BundleSettings || child.value is ConnectSettings {
                return fields(of: child.value).map { ("\(label).\($0.0)", $0.1) }
            }
            let shown: String
            if let optional = child.value as? (any OptionalDescribing) {
                shown = optional.describedOrNull
            } else {
                shown = String(describing: child.value)
            }
            return [(label, shown)]
        }
    }
}

private protocol OptionalDescribing { var describedOrNull: String { get } }
extension Optional: OptionalDescribing {
    fileprivate var describedOrNull: String { map { String(describing: $0) } ?? "null" }
}
