public import JSONSupport
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

    /// The next identifier as text (see ``DecisionID``).
    public func next() -> String { nextID().text }

    /// The next identifier as a value: the hot path writes it into the response without
    /// building a String (a 21-byte String is one heap allocation).
    public func nextID() -> DecisionID {
        DecisionID(prefix: prefix, sequence: counter.wrappingAdd(1, ordering: .relaxed).newValue)
    }
}

/// One `decisionId`: `8 hex digits of the boot prefix` + `-` + `12 hex digits of the counter`.
public struct DecisionID: Sendable, Equatable {
    /// The process run's random prefix.
    public var prefix: UInt32
    /// The decision's number within the run.
    public var sequence: UInt64

    /// Characters in the text form.
    static let length = 21

    /// The identifier's text, for headers and log lines.
    public var text: String {
        String(unsafeUninitializedCapacity: Self.length) { buffer in
            format(into: buffer)
            return Self.length
        }
    }

    /// Appends the member `,"decisionId":"…"` (hex digits and `-` need no escaping), formatted
    /// on the stack and appended in one go.
    public func writeMember(to writer: inout JSONWriter) {
        let name: StaticString = #","decisionId":""#
        let nameLength = name.utf8CodeUnitCount
        let total = nameLength + Self.length + 1
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: total) { buffer in
            // `total` bytes: the name, the 21 characters and the closing quote fill it exactly.
            _ = buffer.initialize(from: UnsafeBufferPointer(start: name.utf8Start, count: nameLength))
            format(into: UnsafeMutableBufferPointer(rebasing: buffer[nameLength..<(nameLength + Self.length)]))
            buffer[total - 1] = UInt8(ascii: "\"")
            writer.writeRaw(bytes: UnsafeBufferPointer(buffer))
        }
    }

    /// Writes the 21 characters into `buffer`, which holds at least that many.
    private func format(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        let digits: StaticString = "0123456789abcdef"
        let table = digits.utf8Start
        for index in 0..<8 { buffer[7 - index] = table[Int((prefix >> (4 * UInt32(index))) & 0xF)] }
        buffer[8] = UInt8(ascii: "-")
        for index in 0..<12 { buffer[20 - index] = table[Int((sequence >> (4 * UInt64(index))) & 0xF)] }
    }
}
