/// Which handlers and match entries a set of test requests exercised.
///
/// Fed with explained decisions: a handler counts when it decided (or, in shadow mode,
/// would have) for some request; an entry counts when it held for a request at a handler
/// whose whole match held. An entry no case reaches is a rule nobody has seen fire.
public struct PolicyCoverage: Sendable {
    /// One countable thing: a handler, or one `hosts`/`paths`/`pathPrefixes`/`pathPatterns`/`urlPatterns` entry of it.
    public struct Item: Sendable, Equatable {
        public var handler: String
        /// Nil for the handler itself; `paths[1] "/sign_out"` for an entry.
        public var entry: String?
        public var covered: Bool
    }

    public private(set) var items: [Item] = []
    private var positionByKey: [String: Int] = [:]

    static let countedFields: [RequestMatcher.Field] = [.hosts, .paths, .pathPrefixes, .pathPatterns, .urlPatterns]

    public init(policy: CompiledPolicy) {
        for link in policy.links {
            add(Item(handler: link.name, entry: nil, covered: false))
            for entry in link.matcher.entries where Self.countedFields.contains(entry.field) {
                add(Item(handler: link.name, entry: entry.label, covered: false))
            }
        }
    }

    private mutating func add(_ item: Item) {
        positionByKey[Self.key(item.handler, item.entry)] = items.count
        items.append(item)
    }

    private static func key(_ handler: String, _ entry: String?) -> String { handler + "\u{0}" + (entry ?? "") }

    /// Marks what an explained decision exercised.
    public mutating func record(_ decision: Decision) {
        for step in decision.trace ?? [] where step.type != "default" {
            guard let matched = step.matched else { continue }
            if step.outcome != .passed { mark(step.handler, nil) }
            for match in matched {
                mark(step.handler, "\(match.field.rawValue)[\(match.index)] \"\(match.entry)\"")
            }
        }
    }

    private mutating func mark(_ handler: String, _ entry: String?) {
        if let position = positionByKey[Self.key(handler, entry)] { items[position].covered = true }
    }

    /// Covered items over all items, 0…100; 100 for a policy with nothing to cover.
    public var percent: Double {
        guard !items.isEmpty else { return 100 }
        return Double(items.filter(\.covered).count) * 100 / Double(items.count)
    }
}
