/// Finds the members of an object whose key an earlier member has, asked of each member in
/// order: the JSON parser's duplicate check and the config's.
///
/// Objects mostly have a handful of keys, where comparing each with the ones before it beats
/// allocating a set per object; past ``pairwiseLimit`` members a set (made once, from the members
/// before), as the scan is quadratic and a config posted to `/v1/policy/analyze` may hold a
/// million members (0.4 MB took 2.7 s, 1.3 MB 25 s: outside attack 13, N2). Keys compare byte
/// for byte (``UTF8Key``), as JSON compares names: a string's `==` and hash normalize a hostile
/// key first, quadratic in a run of combining marks (outside attack 14, R3).
package struct RepeatedKeys {
    package static let pairwiseLimit = 16
    private var seen: Set<UTF8Key> = []

    package init() {}

    /// Whether `key`, the key of `members[index]`, is the key of a member before it.
    package mutating func repeats(_ key: String, at index: Int, in members: [JSONMember]) -> Bool {
        guard index >= Self.pairwiseLimit else { return members[..<index].contains { $0.key.hasSameUTF8(as: key) } }
        if seen.isEmpty { seen = Set(members[..<index].map { UTF8Key($0.key) }) }
        return !seen.insert(UTF8Key(key)).inserted
    }
}
