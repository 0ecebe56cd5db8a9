internal import ConnectionSharing

/// The per-network share of ``HTTPServerConfiguration/connectionLimit``
/// (``HTTPServerConfiguration/perSubnetConnectionLimit`` and the reserve for light networks):
/// the rule lives in `ConnectionSharing`, which the gRPC listener shares; ``ConnectionTracker``
/// keeps one under its lock and asks it from libmicrohttpd's accept-policy and connection
/// callbacks.
typealias SubnetAdmission = ConnectionSharing.SubnetAdmission
