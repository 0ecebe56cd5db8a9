/// How many connections each client subnet holds, and whether one more may join: the fair
/// share of a listener's connection limit between networks, the same rule on every listener
/// (libmicrohttpd's through `HTTPServer`'s `ConnectionTracker`, the gRPC listener's at accept).
///
/// Two rules, both off when ``limit`` is 0:
/// - a network holds at most ``limit`` connections;
/// - the last ``reserved`` slots of the total (an eighth) go only to networks holding fewer
///   than ``lightNetworkConnections``: however many networks an attacker fills to their
///   limit, a network with a handful of connections (a probe, a normal client) still finds a
///   slot until the attacker also spreads over `reserved / lightNetworkConnections` further
///   networks.
///
/// A pure value (no sockets, no locks): each listener keeps one under its own lock.
public struct SubnetAdmission: Sendable {
    /// Connections one subnet may hold; 0 = no limit (and no reserve).
    public let limit: Int
    /// The listener's total connection limit.
    public let totalLimit: Int
    /// Slots at the top of ``totalLimit`` kept for light networks.
    public let reserved: Int
    /// A network holding fewer connections than this may use the reserved slots.
    public let lightNetworkConnections: Int
    private var held: [ClientSubnet: Int] = [:]
    /// Connections counted here, over all networks.
    public private(set) var total = 0

    /// Sharing for a listener of `totalLimit` connections whose networks may hold `limit` each.
    public init(limit: Int, totalLimit: Int = 0) {
        self.limit = limit
        self.totalLimit = totalLimit
        reserved = limit > 0 ? totalLimit / 8 : 0
        lightNetworkConnections = max(1, min(16, limit / 4))
    }

    /// Whether a connection from `subnet` would be admitted now (nothing is recorded).
    public func allows(_ subnet: ClientSubnet) -> Bool {
        guard limit > 0 else { return true }
        let count = held[subnet, default: 0]
        if count >= limit { return false }
        if reserved > 0 && total >= totalLimit - reserved && count >= lightNetworkConnections { return false }
        return true
    }

    /// Records a connection from `subnet` when the subnet may have one more; false (nothing
    /// recorded) otherwise.
    public mutating func admit(_ subnet: ClientSubnet) -> Bool {
        guard allows(subnet) else { return false }
        held[subnet, default: 0] += 1
        total += 1
        return true
    }

    /// Forgets one admitted connection of `subnet`.
    public mutating func release(_ subnet: ClientSubnet) {
        guard let count = held[subnet] else { return }
        // Drop empty entries so that the table holds only subnets with connections.
        held[subnet] = count > 1 ? count - 1 : nil
        total -= 1
    }

    /// Connections `subnet` holds.
    public func count(of subnet: ClientSubnet) -> Int { held[subnet, default: 0] }

    /// Subnets holding at least one connection.
    public var subnetCount: Int { held.count }
}
