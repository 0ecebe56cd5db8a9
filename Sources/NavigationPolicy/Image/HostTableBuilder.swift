/// The two sorted key tables a large `hosts` list is stored as: exact names and `*.` suffixes,
/// each by its match form. The one rule for both places that store such a list: a JSON load
/// (``RequestMatcher``, the daemon and the deciding commands) and `navpolicyd compile`
/// (``HandlerTables``), so an image and a JSON load hold the same tables.
struct HostTableBuilder {
    var exact: SortedKeyTableBuilder
    var wildcards = SortedKeyTableBuilder()

    /// Room for `count` names (most entries of a blocklist are names, few are wildcards).
    init(reservingCapacity count: Int) {
        exact = SortedKeyTableBuilder(reservingCapacity: count, bytesPerKey: 20)
    }

    /// Adds a plain lower-case name, or `*.` over one, from its bytes: their match form is their
    /// own bytes (``HostPattern/plainDomain(_:)-(String)``, the same test `HostPattern.parse`
    /// starts with), so no `String` is made for them. False for any other entry, which the
    /// caller parses and hands to ``add(_:written:configIndex:)``.
    mutating func addPlain(_ bytes: UnsafeBufferPointer<UInt8>, configIndex: Int) -> Bool {
        if let length = HostPattern.plainDomainLength(bytes) {
            let written = length == bytes.count ? nil : String(decoding: bytes, as: UTF8.self)
            exact.add(UnsafeBufferPointer(rebasing: bytes[..<length]), configIndex: configIndex, written: written)
            return true
        }
        if bytes.count > 2, bytes[0] == UInt8(ascii: "*"), bytes[1] == UInt8(ascii: "."),
            let length = HostPattern.plainDomainLength(UnsafeBufferPointer(rebasing: bytes[2...]))
        {
            let written = length == bytes.count - 2 ? nil : String(decoding: bytes, as: UTF8.self)
            wildcards.add(UnsafeBufferPointer(rebasing: bytes[2..<(2 + length)]), configIndex: configIndex, written: written)
            return true
        }
        return false
    }

    /// Adds a parsed name or wildcard (`written` as the config spells it); false for a range or
    /// an address class, which stays an entry (only an address host consults it).
    mutating func add(_ parsed: HostPattern.Parsed, written: String, configIndex: Int) -> Bool {
        switch parsed {
        case .exact(let host):
            exact.add(host.utf8, configIndex: configIndex, written: written == host ? nil : written)
            return true
        case .wildcard(let suffix):
            wildcards.add(suffix.utf8, configIndex: configIndex, written: written == "*." + suffix ? nil : written)
            return true
        case .range, .addressClass:
            return false
        }
    }
}
