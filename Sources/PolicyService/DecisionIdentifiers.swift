import Synchronization

/// Issues `decisionId`s: unique per process run, ordered, cheap (no UUID per request).
///
/// A random boot prefix tells runs apart; a counter orders decisions within a run, so log
/// lines sort by issue order.
public final class DecisionIdentifiers: Sendable {
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    public init() {
        prefix = String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(to: 8)
    }

    public func next() -> String {
        let value = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return prefix + "-" + String(value, radix: 16).leftPadded(to: 12)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
