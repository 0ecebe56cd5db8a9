/// How large and how varied a generated policy is.
public struct PolicyShape: Sendable, CustomStringConvertible {
    /// Handlers in the chain.
    public var handlers: ClosedRange<Int>
    /// Percent of `hosts` and `pathPrefixes` lists that are large (``largeList`` entries): the
    /// lists a JSON load with a low table threshold and an image turn into sorted tables.
    public var largeListPercent: Int
    public var largeList: Int
    /// Requests generated per policy.
    public var requests: Int

    public init(handlers: ClosedRange<Int>, largeListPercent: Int, largeList: Int, requests: Int) {
        self.handlers = handlers
        self.largeListPercent = largeListPercent
        self.largeList = largeList
        self.requests = requests
    }

    /// Small chains whose handlers overlap: what the analysis claims are checked on.
    public static let small = PolicyShape(handlers: 2...5, largeListPercent: 0, largeList: 0, requests: 300)
    /// Chains long enough for the index and with lists long enough to become tables.
    public static let indexed = PolicyShape(handlers: 4...30, largeListPercent: 12, largeList: 70, requests: 300)

    /// A shape from a fuzzer's byte: the chain length, the share of large lists and the requests.
    public init(fuzzByte: UInt8) {
        let long = fuzzByte & 0x80 != 0
        self.init(
            handlers: long ? 4...40 : 2...6, largeListPercent: Int(fuzzByte & 0x0F) * 2,
            largeList: 8 + Int((fuzzByte >> 4) & 0x07) * 10, requests: 64)
    }

    public var description: String {
        "\(handlers.lowerBound)–\(handlers.upperBound) handlers, \(largeListPercent)% lists of \(largeList)"
    }
}
