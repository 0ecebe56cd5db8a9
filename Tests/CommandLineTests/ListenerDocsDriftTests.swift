import Foundation
import Testing

@testable import PolicyService

/// The documents that list the listeners, held to the registration (`ListenerKind.all`) and
/// to the sources, so a new listener cannot be left out of them or described as a file that
/// does not exist.
@Suite("Listener documents follow the registration")
struct ListenerDocsDriftTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func text(_ path: String) throws -> String {
        try String(contentsOf: Self.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The `enum: [...]` values of the first schema property `property` after the line `after`.
    private func openAPIEnum(_ property: String, after anchor: String) throws -> [String] {
        let lines = try text("docs/openapi.yaml").split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == anchor })
        let name = try #require(lines[start...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == "\(property):" })
        let list = try #require(lines[name...].first { $0.contains("enum: [") })
        let inside = list.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }
        return inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test("the status report's listener roles and latency front ends in docs/openapi.yaml are the registered ones")
    func openAPIEnums() throws {
        #expect(try openAPIEnum("role", after: "listeners:") == ListenerKind.all.map(\.role))
        #expect(try openAPIEnum("frontend", after: "StatusLatency:") == DecisionFrontEnd.durationLabels)
    }

    @Test("the systemd socket unit and its notes name every listener's socket")
    func systemdNames() throws {
        for path in ["deploy/systemd/navpolicyd.socket", "deploy/systemd/README.md"] {
            let page = try text(path)
            for role in SocketActivation.listenerNames {
                #expect(page.contains(role), "\(path) does not name the \(role) socket")
            }
        }
    }

    @Test("every Swift file docs/architecture.md names exists")
    func architectureFiles() throws {
        let page = try text("docs/architecture.md")
        let files = ["Sources", "Tests", "bench"].flatMap { folder in
            (FileManager.default.enumerator(atPath: Self.packageRoot.appendingPathComponent(folder).path)?
                .compactMap { $0 as? String } ?? []).map { "\(folder)/\($0)" }
        }
        // Paths as the page writes them: `Composition/ListenerKind.swift`, `PolicyDaemon.swift`
        // (`MatchForms/<Name>Form.swift` is a pattern, not a file).
        let named = Set(
            page.split(whereSeparator: { " `(),*".contains($0) || $0.isNewline })
                .filter { $0.hasSuffix(".swift") && $0.first?.isLetter == true && !$0.contains("<") }.map(String.init))
        #expect(named.count > 40)
        for name in named.sorted() {
            #expect(files.contains { $0 == name || $0.hasSuffix("/" + name) }, "docs/architecture.md names \(name)")
        }
    }
}
