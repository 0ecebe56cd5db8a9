import PolicyHarness
import Testing

@testable import NavigationPolicy

/// The chain index's byte-keyed table (``ByteKeyTable``) finds exactly what a `[String: Value]`
/// keyed by (context, key) finds, across its growth, and the byte walks that feed it
/// (``MatchHost/anyParentDomain(of:_:)``, ``SegmentTrie/forEachSegment(of:_:)``) see the parts
/// the substring walks see.
@Suite("Byte-keyed tables")
struct ByteKeyTableTests {
    struct Key: Hashable {
        let context: UInt32
        let bytes: [UInt8]
    }

    /// Keys of 0–40 bytes (under, at and over the hash's eight-byte step) over a small alphabet,
    /// so near misses (one byte off, a prefix, another context) are common.
    func randomKey(_ random: inout HarnessRandom) -> Key {
        let alphabet = Array("ab.-/x0".utf8)
        let length = random.below(41)
        return Key(
            context: UInt32(random.below(4)), bytes: (0..<length).map { _ in alphabet[random.below(alphabet.count)] })
    }

    @Test("lookups agree with a dictionary at every size through its growth", arguments: 0..<4)
    func agreesWithDictionary(seed: UInt64) {
        var random = HarnessRandom(state: seed)
        var table = ByteKeyTable<Int>()
        var reference: [Key: Int] = [:]
        for step in 0..<3_000 {
            let key = randomKey(&random)
            let entry = key.bytes.withUnsafeBufferPointer { table.insert($0, context: key.context, value: step) }
            let existing = reference[key]
            if existing == nil { reference[key] = step }
            // A key already there keeps its entry and value.
            #expect(table[entry] == reference[key])
            #expect(table.keyLength(entry) == key.bytes.count)
            let probe = randomKey(&random)
            let found = probe.bytes.withUnsafeBufferPointer { table.index(of: $0, context: probe.context) }
            #expect(found.map { table[$0] } == reference[probe], "\(probe)")
        }
        #expect(table.count == reference.count)
        for (key, value) in reference {
            let found = key.bytes.withUnsafeBufferPointer { table.index(of: $0, context: key.context) }
            #expect(found.map { table[$0] } == value)
        }
    }

    @Test("a key found as a slice of a longer string, in place")
    func sliceLookup() {
        var table = ByteKeyTable<String>()
        table.insert(Substring("example.com"), value: "filed")
        let request = "https://www.example.com/path"
        let host = request.dropFirst(12).prefix(11)
        #expect(host == "example.com")
        #expect(table.index(of: host).map { table[$0] } == "filed")
        #expect(table.index(of: host.dropLast()) == nil)
        #expect(table.index(of: host, context: 1) == nil)
    }

    @Test("reserved room holds the keys without growing wrong")
    func reserved() {
        var table = ByteKeyTable<Int>()
        table.reserveCapacity(100)
        for index in 0..<300 { table.insert(Substring("k\(index)"), value: index) }
        for index in 0..<300 { #expect(table.index(of: Substring("k\(index)")).map { table[$0] } == index) }
        #expect(table.index(of: Substring("k300")) == nil)
    }

    @Test(
        "parent domains over bytes are the substring walk's",
        arguments: ["a.b.example.com", "example", "a..b", "a.", ".a", ".", "", "x.y."])
    func parentDomains(host: String) {
        var substrings: [String] = []
        _ = MatchHost.anyParentDomain(of: Substring(host)) {
            substrings.append(String($0))
            return false
        }
        var bytes: [String] = []
        _ = Array(host.utf8).withUnsafeBufferPointer { buffer in
            MatchHost.anyParentDomain(of: buffer) {
                bytes.append(String(decoding: $0, as: UTF8.self))
                return false
            }
        }
        #expect(bytes == substrings)
    }

    @Test("a trie finds a prefix's value for every path under it, and nothing else")
    func trie() {
        var trie = SegmentTrie<[Int]>()
        trie.update("/a/b", initial: []) { $0.append(1) }
        trie.update("/a", initial: []) { $0.append(2) }
        trie.update("/", initial: []) { $0.append(3) }
        trie.update("/a/b", initial: []) { $0.append(4) }
        func found(_ path: String) -> [[Int]] {
            var lists: [[Int]] = []
            trie.anyLeadingSubpath(of: Substring(path)) {
                lists.append($0)
                return false
            }
            return lists
        }
        #expect(found("/a/b/c") == [[3], [2], [1, 4]])
        #expect(found("/a/bc") == [[3], [2]])
        #expect(found("/b/a") == [[3]])
        #expect(found("a/b") == [])
    }
}
