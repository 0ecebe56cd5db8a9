public import JSONSupport

/// What a candidate policy would change, replayed over recorded navigations.
///
/// An accumulator: feed requests one at a time (`add`) and read the report at the end, so a
/// log of any length is replayed in memory bounded by the number of distinct
/// `old handler → new handler` groups times the examples kept per group.
public struct PolicyDiff: Sendable {
    /// One replayed request whose outcome differs.
    public struct Example: Sendable {
        public var url: String
        public var old: Decision
        public var new: Decision
    }

    /// Every change between the same two handlers (`logout → (default)`).
    public struct Group: Sendable {
        public var from: String
        public var to: String
        public var count: Int
        public var examples: [Example]
    }

    public let old: CompiledPolicy
    public let new: CompiledPolicy
    public let examplesPerGroup: Int
    public private(set) var total = 0
    public private(set) var changed = 0
    /// Requests neither policy could decide (invalid URL, method …).
    public private(set) var invalid = 0
    public private(set) var groups: [Group] = []
    private var groupIndex: [String: Int] = [:]

    public init(old: CompiledPolicy, new: CompiledPolicy, examplesPerGroup: Int = 3) {
        self.old = old
        self.new = new
        self.examplesPerGroup = examplesPerGroup
    }

    /// Decides the request under both policies and records it if anything the app sees changes
    /// (decision, handler, action, location or the HTTP response).
    public mutating func add(_ request: NavigationRequest) {
        total += 1
        let canonical: CanonicalRequest
        do {
            canonical = try CanonicalRequest(request)
        } catch {
            invalid += 1
            return
        }
        let before = old.decide(canonical)
        let after = new.decide(canonical)
        guard
            before.verdict != after.verdict || before.handler != after.handler || before.action != after.action
                || before.location != after.location || before.response != after.response
        else { return }
        changed += 1
        let from = before.handler ?? "(default)"
        let to = after.handler ?? "(default)"
        let key = from + "\u{0}" + to
        let position: Int
        if let existing = groupIndex[key] {
            position = existing
        } else {
            position = groups.count
            groupIndex[key] = position
            groups.append(Group(from: from, to: to, count: 0, examples: []))
        }
        groups[position].count += 1
        if groups[position].examples.count < examplesPerGroup {
            groups[position].examples.append(Example(url: canonical.href, old: before, new: after))
        }
    }

    /// Groups by count, largest first (ties in order of first appearance).
    public var sortedGroups: [Group] {
        groups.enumerated().sorted { ($0.element.count, -$0.offset) > ($1.element.count, -$1.offset) }.map(\.element)
    }

    /// `{"total":…,"changed":…,"invalid":…,"groups":[{"from":…,"to":…,"count":…,"examples":[…]}]}`.
    public var jsonObject: JSONObject {
        let groupValues: [JSONValue] = sortedGroups.map { group in
            .object([
                "from": .string(group.from), "to": .string(group.to), "count": .number(Double(group.count)),
                "examples": .array(
                    group.examples.map {
                        .object(["url": .string($0.url), "old": .object($0.old.jsonObject), "new": .object($0.new.jsonObject)])
                    }),
            ])
        }
        return [
            "total": .number(Double(total)), "changed": .number(Double(changed)), "invalid": .number(Double(invalid)),
            "groups": .array(groupValues),
        ]
    }
}
