import Foundation

/// The conformance data copied into this target's `Resources/` (see the README-*.txt there for
/// provenance). Tests read only these copies, so a fresh clone runs them without anything else.
enum TestResources {
    struct MissingResource: Error, CustomStringConvertible {
        let name: String
        var description: String { "test resource Resources/\(name) is missing from the bundle" }
    }

    /// The bytes of `Resources/<name>`.
    static func data(_ name: String) throws -> Data {
        // Foundation on Linux may treat the copied "Resources" folder as the bundle's own
        // resource directory, so look in both places.
        let url =
            Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Resources")
            ?? Bundle.module.url(forResource: name, withExtension: nil)
        guard let url else { throw MissingResource(name: name) }
        return try Data(contentsOf: url)
    }

    /// `Resources/<name>` parsed as a JSON array.
    static func jsonArray(_ name: String) throws -> [Any] {
        guard let array = try JSONSerialization.jsonObject(with: data(name)) as? [Any] else {
            throw MissingResource(name: name + " (not a JSON array)")
        }
        return array
    }
}
