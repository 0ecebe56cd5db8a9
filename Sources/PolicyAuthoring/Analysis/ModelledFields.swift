/// The complete description of what decides a request, as the analysis models it, held to the
/// engine's own types.
///
/// A decision is read from the policy's default, each link's mode and name, its `match` block
/// (cut into regions by ``AnalysisDomain``) and what its handler builds (``HandlerOutcome``:
/// verdict, action, location). Each list below names every stored field of one of those types
/// and says where it is modelled, or why it never reaches a decision. The lists are checked
/// against the types themselves by reflection (`Mirror`), so a field added later (a handler
/// parameter, a link option, a `match` key, a top-level setting `decide` honours) is never
/// silently left out of a proof: until it is modelled and listed here, every claim of "none",
/// "unreachable" or "equivalent" that rests on it is "unknown", with a reason naming the field.
enum ModelledFields {
    /// ``CompiledPolicy``'s stored fields: the `policy` forms' (`defaultVerdict`:
    /// HandlerOutcome(default:)) and what is no form.
    static let policy: Set<String> = AnalysisDomain.modelledStorage(.policy).union([
        "links",  // the chain, link by link below
        "sections",  // server, intake, proxy, …: read by the front ends, never by decide
        "index", "patterns", "hasURLPatterns",  // built from the links to decide faster; same answers
    ])

    /// ``ChainLink``'s stored fields: the `link` forms' (`isShadow`: shadow links never decide,
    /// left out of every enforcing list) and what is no form.
    static let link: Set<String> = AnalysisDomain.modelledStorage(.link).union([
        "name",  // Decision.handler: compared with --compare handler (HandlerOutcome.handler)
        "type",  // what the handler is (below)
        "matcher",  // the match block (below)
        "handler",  // HandlerOutcome
    ])

    /// The stored fields of a `match` block (``RequestMatcher/Conditions``): the `match` forms'
    /// (regions; `urlPatterns` where URLPatternShape cuts them, else unknown with the reason,
    /// and `undecidedURLPatternsHold` only when a regexp run is stopped, failing closed).
    static let conditions: Set<String> = AnalysisDomain.modelledStorage(.match).union([
        "entries"  // the same conditions as written, for explain and lint
    ])

    /// Stored fields of handler values (and of the ``CancelBehavior`` they hold): the `handler`
    /// forms' (HandlerOutcome's action and location) and the handler's own name (the link's).
    static let handler: Set<String> = AnalysisDomain.modelledStorage(.handler).union(["name"])

    /// Fields of the engine's fixed types not in the lists above, as `Type.field`; empty when the
    /// model is complete. The types are fixed at build time, so this is asked once.
    static let unmodelledEngineFields: [String] = {
        let probe = ChainLink.probe(.everything)
        let policy = CompiledPolicy(defaultVerdict: .allow, links: [probe], sections: [:])
        return unlisted(policy, Self.policy, "CompiledPolicy") + unlisted(probe, Self.link, "ChainLink")
            + unlisted(RequestMatcher.everything.conditions, Self.conditions, "match")
    }()

    /// The fields of each distinct handler type in `links` that ``HandlerOutcome`` does not
    /// model, with the first handler of that type, as `("name", "Type.field")`.
    static func unmodelledHandlerFields(_ links: [ChainLink]) -> [(name: String, field: String)] {
        var seen: Set<ObjectIdentifier> = []
        var found: [(name: String, field: String)] = []
        for link in links where seen.insert(ObjectIdentifier(type(of: link.handler.base))).inserted {
            for field in handlerFields(link.handler.base) { found.append((link.name, field)) }
        }
        return found
    }

    /// Why claims about `links` are unknown because a field is not modelled, or nil.
    static func unknownReason(_ links: [ChainLink]) -> String? {
        let fields = unmodelledEngineFields + unmodelledHandlerFields(links).map { "\($0.field) (handler \"\($0.name)\")" }
        guard !fields.isEmpty else { return nil }
        return "the analysis does not model " + fields.joined(separator: ", ")
            + ", which the engine may read when it decides; not decided exactly"
    }

    /// A handler's own fields and those of the behaviour it holds, that are not listed.
    static func handlerFields(_ handler: any NavigationHandler) -> [String] {
        var fields: [String] = []
        let typeName = String(describing: type(of: handler))
        for child in Mirror(reflecting: handler).children {
            guard let label = child.label else { continue }
            if !Self.handler.contains(label) { fields.append("\(typeName).\(label)") }
            if let behavior = child.value as? CancelBehavior {
                fields += unlisted(behavior, Self.handler, "CancelBehavior")
            }
        }
        return fields
    }

    private static func unlisted(_ value: Any, _ listed: Set<String>, _ typeName: String) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            guard let label = child.label, !listed.contains(label) else { return nil }
            return "\(typeName).\(label)"
        }
    }
}
