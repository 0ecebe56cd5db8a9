/// How many connections each client subnet holds, and whether one more may join: the fair
/// share of ``HTTPServerConfiguration/connectionLimit`` between networks.
///
/// A pure value (no sockets, no locks): ``ConnectionTracker`` keeps one under its lock and
/// asks it from libmicrohttpd's accept-policy and connection callbacks.
struct SubnetAdmission: Sendable {
    /// Connections one subnet may hold; 0 = no limit.
    let limit: Int
    private var held: [ClientSubnet: Int] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether a connection from `subnet` would be admitted now (nothing is recorded).
    func allows(_ subnet: ClientSubnet) -> Bool {
        limit == 0 || held[subnet, default: 0] < limit
    }

    /// Records a connection from `subnet` when the subnet has room; false (nothing recorded)
    /// when it is at its limit.
    mutating func admit(_ subnet: ClientSubnet) -> Bool {
        guard allows(subnet) else { return false }
        held[subnet, default: 0] += 1
        return true
    }

    /// Forgets one admitted connection of `subnet`.
    mutating func release(_ subnet: ClientSubnet) {
        guard let count = held[subnet] else { return }
        // Drop empty entries so that the table holds only subnets with connections.
        held[subnet] = count > 1 ? count - 1 : nil
    }

    /// Connections `subnet` holds.
    func count(of subnet: ClientSubnet) -> Int { held[subnet, default: 0] }

    /// Subnets holding at least one connection.
    var subnetCount: Int { held.count }
}
