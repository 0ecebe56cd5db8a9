internal import JSONSupport

/// A hash table from match-form keys, as UTF-8 bytes in a numbered context, to values, looked up
/// with bytes read in place: the chain index's hosts and paths, and ``SegmentTrie``'s edges
/// (the context is the parent node).
///
/// A `[Substring: Value]` hashes a request's slice through the string's normalizing hasher and
/// compares keys through the string comparison, and each lookup copies (retains and releases)
/// the slice. Match forms are ASCII, where bytes and `String` equality agree, so this table
/// hashes and compares bytes: half of a 500-handler decision in the WebAssembly build was the
/// index's `Substring` lookups and their copies (docs/performance.md, "Issue 43").
///
/// Open addressing with linear probing, at most half full. Keys come from the config; lookups
/// come from requests, so a lookup costs at most the longest run of filled slots the config's
/// keys make. The hash is seeded per process (from `Hasher`'s seed), so neither a config nor a
/// request can be written to pile keys into one run.
struct ByteKeyTable<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        /// The key's bytes: `keyBytes[start..<start + count]`.
        let start: UInt32
        let count: UInt32
        let context: UInt32
        /// The key's hash, compared before the bytes.
        let hash: UInt32
    }

    private var keyBytes: [UInt8] = []
    private var entries: [Entry] = []
    /// Values by entry, in insertion order.
    private var values: [Value] = []
    /// Entry numbers by slot, -1 when empty; a power of two long (or empty).
    private var slots: [Int32] = []
    private let seed: UInt64

    init() {
        var hasher = Hasher()
        hasher.combine(0x6E_61_76_70 as UInt32)
        let low = UInt64(UInt32(truncatingIfNeeded: hasher.finalize()))
        var second = Hasher()
        second.combine(0x6F_6C_69_63 as UInt32)
        let high = UInt64(UInt32(truncatingIfNeeded: second.finalize()))
        seed = high << 32 | low
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The value of entry `index` (a number ``index(of:context:)`` or ``insert(_:context:value:)``
    /// returned).
    subscript(index: Int) -> Value {
        get { values[index] }
        set { values[index] = newValue }
    }

    /// The byte length of entry `index`'s key.
    func keyLength(_ index: Int) -> Int { Int(entries[index].count) }

    /// Room for `count` keys without growing.
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        values.reserveCapacity(count)
        if Self.slotCount(for: count) > slots.count { rehash(slotCount: Self.slotCount(for: count)) }
    }

    /// The entry whose key is `key` in `context`, or nil.
    func index(of key: UnsafeBufferPointer<UInt8>, context: UInt32 = 0) -> Int? {
        guard !slots.isEmpty else { return nil }
        let hash = Self.hash(key, context: context, seed: seed)
        let mask = slots.count - 1
        // Truncating: in wasm32 `Int` is 32 bits, where `Int(hash)` traps on half the hashes.
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let number = slots[slot]
            if number < 0 { return nil }
            let entry = entries[Int(number)]
            if entry.hash == hash, Int(entry.count) == key.count, entry.context == context, holds(entry, key) {
                return Int(number)
            }
            slot = (slot + 1) & mask
        }
    }

    /// Whether `entry`'s key is `key`'s bytes (of its length). Only the compare reads the keys'
    /// storage through a closure, and that closure captures the entry and the key alone: a
    /// closure around the whole probe captured (in the WebAssembly build, copied) the table.
    private func holds(_ entry: Entry, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = Int(entry.start)
        return keyBytes.withUnsafeBufferPointer { stored in
            UTF8Bytes.equal(UnsafeBufferPointer(rebasing: stored[start..<start + key.count]), key)
        }
    }

    /// Adds `key` in `context` with `value` unless it is there; returns its entry either way
    /// (an existing entry keeps its value).
    @discardableResult
    mutating func insert(_ key: UnsafeBufferPointer<UInt8>, context: UInt32 = 0, value: @autoclosure () -> Value) -> Int {
        if let existing = index(of: key, context: context) { return existing }
        if (entries.count + 1) * 2 > slots.count { rehash(slotCount: Self.slotCount(for: entries.count + 1)) }
        let number = entries.count
        entries.append(
            Entry(
                start: UInt32(keyBytes.count), count: UInt32(key.count), context: context,
                hash: Self.hash(key, context: context, seed: seed)))
        keyBytes.append(contentsOf: key)
        values.append(value())
        place(number)
        return number
    }

    /// The same with a key given as a substring (config keys, at compile time).
    @discardableResult
    mutating func insert(_ key: Substring, context: UInt32 = 0, value: @autoclosure () -> Value) -> Int {
        key.withUTF8Bytes { insert($0, context: context, value: value()) }
    }

    /// The entry of `key` in `context`, or nil (a lookup with a substring, outside a decision's hot path).
    func index(of key: Substring, context: UInt32 = 0) -> Int? {
        key.withUTF8Bytes { index(of: $0, context: context) }
    }

    /// Slots for `count` keys: a power of two at least twice as many.
    private static func slotCount(for count: Int) -> Int {
        var slots = 8
        while slots < count * 2 { slots *= 2 }
        return slots
    }

    private mutating func rehash(slotCount: Int) {
        slots = Array(repeating: -1, count: slotCount)
        for number in entries.indices { place(number) }
    }

    /// Puts entry `number` in the first empty slot from its hash's.
    private mutating func place(_ number: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: entries[number].hash) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(number)
    }

    /// A seeded hash of `key` in `context`: eight bytes at a time, each folded in by a
    /// multiply, the sum finished by MurmurHash3's 64-bit mix so every bit of the key moves the
    /// slot bits. Reads the bytes only below `key.count`.
    static func hash(_ key: UnsafeBufferPointer<UInt8>, context: UInt32, seed: UInt64) -> UInt32 {
        var state = seed ^ (UInt64(context) &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(key.count)
        var offset = 0
        if key.count >= 8 {
            let raw = UnsafeRawBufferPointer(key)
            while offset + 8 <= key.count {
                state = (state ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                state ^= state >> 32
                offset += 8
            }
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < key.count {
            tail |= UInt64(key[offset]) << shift
            shift += 8
            offset += 1
        }
        state = (state ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        state ^= state >> 33
        state &*= 0xFF51_AFD7_ED55_8CCD
        state ^= state >> 33
        state &*= 0xC4CE_B9FE_1A85_EC53
        state ^= state >> 33
        return UInt32(truncatingIfNeeded: state)
    }
}
