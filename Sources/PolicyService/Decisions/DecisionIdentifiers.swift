import Synchronization

/// Issues `decisionId`s: unique per process run, ordered, cheap (no UUID per request).
///
/// A random boot prefix tells runs apart; a counter orders decisions within a run, so log
/// lines sort by issue order.
public final class DecisionIdentifiers: Sendable {
    private let counter = Atomic<UInt64>(0)

    private let prefix: UInt32

    public init() {
        prefix = UInt32.random(in: .min ... .max)
    }

    /// `8 hex digits of the boot prefix` + `-` + `12 hex digits of the counter`, built in one
    /// buffer: this runs once per decision.
    public func next() -> String {
        let value = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: 21) { buffer in
            let digits: StaticString = "0123456789abcdef"
            let table = digits.utf8Start
            for index in 0..<8 { buffer[7 - index] = table[Int((prefix >> (4 * UInt32(index))) & 0xF)] }
            buffer[8] = UInt8(ascii: "-")
            for index in 0..<12 { buffer[20 - index] = table[Int((value >> (4 * UInt64(index))) & 0xF)] }
            return 21
        }
    }
}
