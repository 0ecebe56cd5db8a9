import JSONSupport
import NavigationPolicy
import Testing

@testable import ShareIntake

@Suite("intake config section")
struct IntakeSettingsTests {
    func issues(_ json: String) -> [String] {
        let compiler = PolicyCompiler(sections: [ConfigSection(name: "intake", validate: IntakeSettings.validator)])
        do {
            _ = try compiler.compile(Array(json.utf8))
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    @Test("defaults, values and errors at their JSON pointers")
    func decoding() throws {
        let policy = try PolicyCompiler(sections: [ConfigSection(name: "intake", validate: IntakeSettings.validator)]).compile(
            Array(
                #"{"handlers":[],"intake":{"maxWebURLs":3,"onCancel":"reject","database":"/tmp/x.db","groupCommit":false}}"#.utf8)
        )
        let settings = IntakeSettings.from(policy)
        #expect(settings.maxWebURLs == 3)
        #expect(settings.onCancel == .reject)
        #expect(settings.database == "/tmp/x.db")
        #expect(!settings.groupCommit)
        #expect(IntakeSettings() == IntakeSettings.from(try PolicyCompiler().compile(Array(#"{"handlers":[]}"#.utf8))))
        let found = issues(
            #"{"handlers":[],"intake":{"maxWebURL":1,"maxWebURLs":0,"onCancel":"drop","database":"","groupCommit":1}}"#)
        #expect(found.contains(#"/intake/maxWebURL: unknown field "maxWebURL"; did you mean "maxWebURLs"?"#), "\(found)")
        #expect(found.contains("/intake/maxWebURLs: 0 is out of range 1...50"), "\(found)")
        #expect(found.contains { $0.hasPrefix("/intake/onCancel: unknown value \"drop\"") }, "\(found)")
        #expect(found.contains("/intake/database: expected a non-empty path"), "\(found)")
        #expect(found.contains("/intake/groupCommit: expected true or false, got a number"), "\(found)")
    }

    @Test("maxDatabaseBytes: absent means no limit; a value below 64 KiB is refused at its pointer")
    func maxDatabaseBytes() throws {
        let compiler = PolicyCompiler(sections: [ConfigSection(name: "intake", validate: IntakeSettings.validator)])
        let limited = try compiler.compile(Array(#"{"handlers":[],"intake":{"maxDatabaseBytes":1048576}}"#.utf8))
        #expect(IntakeSettings.from(limited).maxDatabaseBytes == 1_048_576)
        #expect(IntakeSettings().maxDatabaseBytes == nil)
        let found = issues(#"{"handlers":[],"intake":{"maxDatabaseBytes":1000}}"#)
        #expect(found == ["/intake/maxDatabaseBytes: 1000 is out of range 65536...1099511627776"], "\(found)")
    }

    @Test("maxWaitingRequests: 32 by default, 1 to 4096")
    func maxWaitingRequests() throws {
        let compiler = PolicyCompiler(sections: [ConfigSection(name: "intake", validate: IntakeSettings.validator)])
        let set = try compiler.compile(Array(#"{"handlers":[],"intake":{"maxWaitingRequests":4}}"#.utf8))
        #expect(IntakeSettings.from(set).maxWaitingRequests == 4)
        #expect(IntakeSettings().maxWaitingRequests == 32)
        let found = issues(#"{"handlers":[],"intake":{"maxWaitingRequests":0}}"#)
        #expect(found == ["/intake/maxWaitingRequests: 0 is out of range 1...4096"], "\(found)")
    }
}
