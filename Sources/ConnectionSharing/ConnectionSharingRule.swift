/// The one rule for a listener's three connection limits, for the servers and for config
/// validation (the daemon's `server` section, and a core-only build's, through PolicySections).
public enum ConnectionSharingRule {
    /// Why these limits do not share `connectionLimit` fairly, or nil when they do: a
    /// per-address or per-network limit (when not 0) stays below the total, or one address
    /// (network) can take every connection, health checks included; and an address cannot be
    /// allowed more than its network. Returns the offending setting's name
    /// (`perIPConnectionLimit` or `perSubnetConnectionLimit`) and why.
    public static func problem(connectionLimit: Int, perIP: Int, perSubnet: Int) -> (setting: String, message: String)? {
        if perIP != 0 && perIP >= connectionLimit {
            return (
                "perIPConnectionLimit",
                "perIPConnectionLimit \(perIP) must be below connectionLimit \(connectionLimit): one address could take "
                    + "every connection, health checks included (0 turns the per-address limit off)"
            )
        }
        if perSubnet != 0 && perSubnet >= connectionLimit {
            return (
                "perSubnetConnectionLimit",
                "perSubnetConnectionLimit \(perSubnet) must be below connectionLimit \(connectionLimit): one network "
                    + "could take every connection (0 turns the per-network limit off)"
            )
        }
        if perSubnet != 0 && perIP > perSubnet {
            return (
                "perIPConnectionLimit",
                "perIPConnectionLimit \(perIP) is above perSubnetConnectionLimit \(perSubnet): an address can never hold "
                    + "more connections than its network; lower it or raise the network limit"
            )
        }
        return nil
    }
}
