/// A bad command line: the message names the flag or value at fault.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// The parsed form of one subcommand's arguments.
struct ParsedArguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ name: String) -> String? { values[name] }
    func has(_ name: String) -> Bool { flags.contains(name) }
}

/// A deliberately small parser: `--name value`, `--name=value`, boolean `--flag`, and `--`
/// to end options (so URLs that start with `-` can still be checked).
struct ArgumentSpec {
    var valueOptions: Set<String>
    var flagOptions: Set<String>

    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                parsed.positionals.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                if argument.hasPrefix("-"), argument != "-", argument.count > 1 {
                    throw UsageError("unknown option '\(argument)'")
                }
                parsed.positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if valueOptions.contains(name) {
                if let inlineValue {
                    parsed.values[name] = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("option '--\(name)' needs a value") }
                    parsed.values[name] = arguments[index]
                    index += 1
                }
            } else if flagOptions.contains(name) {
                guard inlineValue == nil else { throw UsageError("option '--\(name)' takes no value") }
                parsed.flags.insert(name)
            } else {
                throw UsageError("unknown option '--\(name)'")
            }
        }
        return parsed
    }
}
