import Testing

@testable import NavigationPolicy

/// Host and path sets keep up to four keys as a short array and hash past that; both forms
/// must hold, find and list exactly the keys inserted.
@Suite("Match key sets: short array, then hashed")
struct FewKeysTests {
    @Test("every size across the switch to hashing: same members, duplicates dropped", arguments: 0...9)
    func membersAtEverySize(size: Int) {
        let keys = (0..<size).map { "host\($0).example" }
        var set = FewKeys()
        for key in keys {
            let added = set.insert(key)
            let addedAgain = set.insert(key)  // a repeat is not a new key
            #expect(added && !addedAgain)
        }
        #expect(set.count == size)
        #expect(set.isEmpty == (size == 0))
        #expect(Set(set.map(String.init)) == Set(keys))
        for key in keys { #expect(set.contains(Substring(key))) }
        // Near misses: same length, one byte off; a prefix; a longer key; empty.
        for miss in ["host0.examplf", "host0.exampl", "host0.example.", "", "HOST0.EXAMPLE"] {
            #expect(!set.contains(Substring(miss)))
        }
        if let first = set.first { #expect(keys.contains(String(first))) } else { #expect(size == 0) }
    }

    @Test("a key found as a slice of a longer string (how requests look hosts up)")
    func sliceLookup() {
        var set = FewKeys()
        set.insert("pay.example.com")
        let url = "https://pay.example.com/checkout"
        let host = url.dropFirst(8).prefix(15)
        #expect(set.contains(host))
        #expect(!set.contains(url.dropFirst(8).prefix(14)))
    }

    @Test("host sets answer through the key set for exact hosts and wildcards, few or many")
    func hostSetAnswers() {
        for count in [1, 4, 5, 12] {
            var hosts = HostSet()
            for index in 0..<count {
                hosts.insertExact("h\(index).example")
                hosts.insertWildcard(suffix: "w\(index).example")
            }
            #expect(hosts.contains(Substring("h\(count - 1).example")))
            #expect(hosts.contains(Substring("a.b.w\(count - 1).example")))
            #expect(!hosts.contains(Substring("w\(count - 1).example")))  // a wildcard needs a subdomain
            #expect(!hosts.contains(Substring("h\(count).example")))
        }
    }
}
