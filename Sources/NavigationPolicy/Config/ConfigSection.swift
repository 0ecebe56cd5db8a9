/// One top-level config section a front end reads beside the chain (the daemon's `server`,
/// `proxy`, ...): its name and its validator.
///
/// The compiler is told its sections (``PolicyCompiler/sections``) and names none of its own,
/// so every build of the engine (the daemon, an app, a WebAssembly module) accepts exactly the
/// sections it was given and checks each with the same validator.
public struct ConfigSection: Sendable {
    /// The top-level key (`proxy`).
    public let name: String
    /// Checks the section (already known to be an object) in the same pass as the chain, so
    /// `validate` and reloads report its errors with the rest.
    public let validate: PolicyCompiler.SectionValidator

    /// A section named `name`, checked by `validate`; without one it is only checked to be an
    /// object (for a reader that keeps the section but does not interpret it).
    public init(name: String, validate: @escaping PolicyCompiler.SectionValidator = { _, _ in }) {
        self.name = name
        self.validate = validate
    }
}
