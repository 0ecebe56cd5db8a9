public import Foundation

/// A part of a document that is generated from code and must not be edited by hand: the lines
/// between `<!-- generated: NAME -->` and `<!-- end generated: NAME -->`. A test renders the
/// part from the code and compares; on a difference its message is the text to paste.
public enum GeneratedDocSection {
    /// The repository root (this file is Tests/Support/TestScratchSupport/GeneratedDocSection.swift).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The text between the markers of `name` in `document` (relative to the repository root),
    /// without the marker lines; nil when the document lacks either marker.
    public static func current(_ name: String, in document: String) throws -> String? {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("<!-- generated: \(name) ") }),
            let end = lines.firstIndex(of: "<!-- end generated: \(name) -->"), start < end
        else { return nil }
        return lines[(start + 1)..<end].joined(separator: "\n")
    }

    /// nil when the section of `document` is `expected`; else a message with the text to paste.
    public static func mismatch(_ name: String, in document: String, expected: String) throws -> String? {
        let found = try current(name, in: document)
        guard found != expected else { return nil }
        let problem = found == nil ? "has no \"\(name)\" markers" : "has a stale \"\(name)\" section"
        return "\(document) \(problem); paste this between the markers:\n\(expected)"
    }
}
