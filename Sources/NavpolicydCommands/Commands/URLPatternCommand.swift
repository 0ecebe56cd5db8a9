import JSONSupport
import NavigationPolicy

/// `navpolicyd urlpattern exec|test --pattern-args JSON --input-args JSON`: the URLPattern
/// constructor and `exec()` / `test()` on arguments written exactly as the web-platform-tests
/// data writes them, as `canonicalize` is for URLs: the conformance interface to the pattern
/// engine that `match.urlPatterns` uses.
package struct URLPatternCommand: ParsableCommand {
    static let patternArgs = Option.text(
        "pattern-args", "JSON", help: "the constructor's arguments as a JSON array: [input, baseURL?, options?]",
        required: true)
    static let inputArgs = Option.text(
        "input-args", "JSON", help: "exec()'s arguments as a JSON array: [input, baseURL?] (default: [])")

    /// `exec` prints the match; `test` prints whether there is one.
    package enum Action: String, CaseIterable, Sendable {
        case exec, test
    }

    package static let declaration = CommandDeclaration(
        name: "urlpattern",
        summary: "Run a URLPattern's exec() or test() on WPT-style JSON arguments",
        discussion: """
            Builds new URLPattern(...pattern-args) and runs exec(...input-args) or
            test(...input-args), with both argument lists as JSON arrays written as the
            web-platform-tests urlpatterntestdata.json writes "pattern" and "inputs":
              navpolicyd urlpattern exec --pattern-args '[{"pathname":"/books/:id"}]' \\
                --input-args '["https://example.com/books/123"]'
            exec prints the result as one JSON object: "inputs", then each component's
            "input" and "groups" (a group that did not take part is null); or null when
            the input does not match (or does not parse as a URL).
            test prints true or false.
            """,
        notes: """
            Exit status: exec 0 with a result or null; test 0 true, 1 false; 2 when the
            arguments are not JSON arrays, or the constructor or exec() throws (the error is
            printed on stderr).
            """,
        options: [patternArgs.declaration, inputArgs.declaration],
        positional: PositionalDeclaration(
            name: "exec|test", help: "exec prints the match, test prints true or false", arity: .exactlyOne,
            missingMessage: "expected exec or test"))

    package var action: Action = .exec
    var patternArguments: [JSONValue] = []
    var inputArguments: [JSONValue] = []
    private let actionText: String?
    private let patternText: String?
    private let inputText: String?

    package init(_ arguments: ParsedArguments) {
        actionText = arguments.positionals.first
        patternText = arguments[Self.patternArgs]
        inputText = arguments[Self.inputArgs]
    }

    package mutating func validate() throws(CommandError) {
        guard let actionText, let action = Action(rawValue: actionText) else {
            throw .usage("unknown action \(actionText ?? ""); expected exec or test")
        }
        self.action = action
        patternArguments = try Self.array(patternText ?? "[]", flag: "--pattern-args")
        inputArguments = try Self.array(inputText ?? "[]", flag: "--input-args")
    }

    /// `text` parsed as a JSON array, or a message naming the flag.
    private static func array(_ text: String, flag: String) throws(CommandError) -> [JSONValue] {
        let value: JSONValue
        do {
            value = try JSONParser(maximumDepth: 8, rejectsDuplicateMembers: true).parse(text)
        } catch {
            throw .invalidValue("\(flag): not JSON (\(error))")
        }
        guard case .array(let elements) = value else {
            throw .invalidValue("\(flag): expected a JSON array of arguments, got \(value.kindName)")
        }
        return elements
    }

    package func run(_ output: Output) -> Int32 {
        let pattern: URLPattern
        do {
            pattern = try URLPattern(arguments: patternArguments)
        } catch {
            output.err("navpolicyd urlpattern: new URLPattern() throws: \(error)")
            return ExitCode.usage
        }
        let result: URLPatternResult?
        do {
            result = try pattern.exec(arguments: inputArguments)
        } catch {
            output.err("navpolicyd urlpattern: \(action.rawValue)() throws: \(error)")
            return ExitCode.usage
        }
        switch action {
        case .exec:
            output.out((result?.json ?? .null).serialized)
            return ExitCode.success
        case .test:
            output.out(result == nil ? "false" : "true")
            return result == nil ? ExitCode.failure : ExitCode.success
        }
    }
}
