/// Why a URLPattern could not be built or an input could not be matched: the standard's
/// `TypeError`s, each with what is wrong and where.
public struct URLPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of failure.
    public enum Kind: Sendable, Equatable {
        /// The tokenizer refused a pattern string (bad escape, bad name, bad regexp group).
        case tokenizer
        /// The pattern parser refused a token sequence (unbalanced `{`, duplicate name, …).
        case parser
        /// A component's fixed text does not canonicalize (e.g. a hostname with a forbidden code point).
        case canonicalization
        /// A regexp group `(…)` is not a regular expression the engine accepts.
        case regexp
        /// The constructor's arguments do not fit together (no base URL for a relative pattern,
        /// a base URL next to a dictionary, a base URL that does not parse, an unknown option).
        case arguments
    }

    /// The category of failure.
    public let kind: Kind
    /// What is wrong, in words.
    public let message: String
    /// The component the error is about ("protocol" … "hash"), when it is about one.
    public let component: String?
    /// The code point offset in that component's pattern string (or in the constructor string).
    public let offset: Int?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, component: String? = nil, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.component = component
        self.offset = offset
    }

    /// The same error, attributed to `component` unless it already names one.
    func `in`(_ component: String) -> URLPatternError {
        self.component == nil ? URLPatternError(kind, message, component: component, offset: offset) : self
    }

    /// Runs `body`, attributing an error it throws to `component`.
    static func attributed<T>(
        to component: String, _ body: () throws(URLPatternError) -> T
    ) throws(URLPatternError) -> T {
        do throws(URLPatternError) {
            return try body()
        } catch {
            throw error.in(component)
        }
    }

    /// "<component> pattern, offset <n>: <message>".
    public var description: String {
        var place: [String] = []
        if let component { place.append("\(component) pattern") }
        if let offset { place.append("offset \(offset)") }
        return place.isEmpty ? message : place.joined(separator: ", ") + ": " + message
    }
}
