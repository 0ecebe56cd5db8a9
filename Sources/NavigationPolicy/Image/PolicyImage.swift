/// The compiled policy image: a chain written once by `navpolicyd compile` and used in place.
///
/// Layout (docs/compiled-policy.md), little-endian, no pointers:
///
/// - Header, 96 bytes: magic `NAVPIMG\0`; format version (`u32`); flags (`u32`, 0); total
///   length (`u64`); BLAKE2b-256 of every byte after the checksum (56..<length); SHA-256 of the
///   source config (its revision); section count (`u32`); 4 reserved zero bytes.
/// - Section table: per section, kind (`u32`), 4 zero bytes, offset (`u64`), length (`u64`).
/// - Sections: exactly one ``SectionKind/config`` (the chain's JSON with the large lists taken
///   out: every small form, `urlPatterns` included, is compiled from its source text at load),
///   at most one ``SectionKind/daemonSections``, and one ``SectionKind/handlerTables`` per handler whose `hosts` or `pathPrefixes` became
///   sorted tables (``SortedKeyTable``), read in place.
public enum PolicyImage {
    static let magic: [UInt8] = Array("NAVPIMG".utf8) + [0]
    /// The one version this build writes and reads.
    public static let formatVersion = 1
    static let headerLength = 96
    static let checksumOffset = 24
    /// The checksum covers the bytes from here (right after it) to the end.
    static let checkedFrom = 56
    static let sectionEntryLength = 24

    enum SectionKind: Int {
        /// `defaultDecision` and `handlers`, as JSON (large lists taken out).
        case config = 1
        case handlerTables = 2
        /// The daemon's own sections (`server`, `intake`, `proxy`, `decisionLog`) as one JSON
        /// object: apart, so a bundle's image can leave them out (``strippingDaemonSections(_:checksum:)``).
        case daemonSections = 3
    }

    /// Lists shorter than this stay in the config section (a table costs more than it saves).
    public static let defaultTableThreshold = 64

    /// Whether `bytes` start like an image (the magic): how commands tell one from JSON, whose
    /// first byte is never NUL-terminated `NAVPIMG`.
    public static func hasMagic(_ bytes: some Sequence<UInt8>) -> Bool {
        bytes.prefix(magic.count).elementsEqual(magic)
    }

    /// What the header says, for `compile` and `validate` to show.
    public struct Header: Sendable {
        public let formatVersion: Int
        public let totalLength: Int
        /// `sha256:` + hex of the source config's bytes: the revision serving that JSON would have.
        public let sourceRevision: String
        public let sectionCount: Int
    }

    /// A loaded image: the policy and its header.
    public struct Loaded: Sendable {
        public let policy: CompiledPolicy
        public let header: Header
        /// How many handlers read a table in place.
        public let tableHandlers: Int
    }
}
