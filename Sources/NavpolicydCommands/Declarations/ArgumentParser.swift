/// Parses one command's arguments against its declaration: `--name value`, `--name=value`,
/// flags, single-letter aliases, and `--` to end options (so a URL that starts with `-` can
/// still be checked). Every error is a `CommandError.usage` naming the flag or value at fault.
package struct ArgumentParser: Sendable {
    package let declaration: CommandDeclaration

    package init(_ declaration: CommandDeclaration) {
        self.declaration = declaration
    }

    package func parse(_ arguments: [String]) throws(CommandError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                parsed.positionals.append(contentsOf: arguments[index...])
                break
            }
            let option: OptionDeclaration
            var inlineValue: String?
            if argument.hasPrefix("--"), argument.count > 2 {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let declared = declaration.option(named: name) else {
                    throw .usage("unknown option '--\(name)'" + suggestion(for: "--" + name))
                }
                option = declared
            } else if argument.hasPrefix("-"), argument.count > 1 {
                let letters = argument.dropFirst()
                guard letters.count == 1, let letter = letters.first, let declared = declaration.option(short: letter) else {
                    throw .usage("unknown option '\(argument)'" + suggestion(for: argument))
                }
                option = declared
            } else {
                parsed.positionals.append(argument)
                continue
            }
            if parsed.isGiven(option.name), !option.isRepeatable {
                throw .usage("option '\(option.longForm)' was given more than once")
            }
            if option.isFlag {
                guard inlineValue == nil else { throw .usage("option '\(option.longForm)' takes no value") }
                parsed.flags.insert(option.name)
                continue
            }
            let text: String
            if let inlineValue {
                text = inlineValue
            } else {
                guard index < arguments.count else { throw .usage("option '\(option.longForm)' needs a value") }
                text = arguments[index]
                index += 1
            }
            guard let value = option.kind.convert(text) else {
                throw .usage("\(option.longForm) takes \(option.kind.phrase), not '\(text)'")
            }
            parsed.given[option.name, default: []].append(value)
        }
        try checkDeclaredRules(&parsed)
        return parsed
    }

    /// Defaults, required options, exclusive groups and operand counts: the rules the
    /// declaration states, so no command re-implements them.
    private func checkDeclaredRules(_ parsed: inout ParsedArguments) throws(CommandError) {
        for option in declaration.options {
            if let defaultText = option.defaultValue, let value = option.kind.convert(defaultText) {
                parsed.defaults[option.name] = value
            }
        }
        let count = parsed.positionals.count
        if let positional = declaration.positional {
            switch positional.arity {
            case .exactlyOne where count == 0, .oneOrMore where count == 0:
                throw .usage(positional.missingMessage)
            case .exactlyOne where count > 1:
                throw .usage("expected one \(positional.name), got \(count)")
            default:
                break
            }
            for operand in parsed.positionals where positional.kind.convert(operand) == nil {
                throw .usage("\(positional.name) takes \(positional.kind.phrase), not '\(operand)'")
            }
        } else if let first = parsed.positionals.first {
            throw .usage("unexpected argument '\(first)'" + (declaration.unexpectedArgumentHint.map { " (\($0))" } ?? ""))
        }
        for option in declaration.options where option.isRequired && !parsed.isGiven(option.name) {
            throw .usage("\(option.synopsis) is required (\(option.help))")
        }
        for group in declaration.exclusiveGroups {
            let given = group.names.filter { parsed.isGiven($0) }
            let listed = ValueKind.alternatives(group.names.map { "--" + $0 })
            if group.isRequired, given.count != 1 { throw .usage("give exactly one of \(listed)") }
            if !group.isRequired, given.count > 1 { throw .usage("give at most one of \(listed)") }
        }
    }

    /// "; did you mean '--config'?" when a declared option is a likely typo of `typed`.
    private func suggestion(for typed: String) -> String {
        let candidates = declaration.allOptions.map(\.longForm)
        return Suggestion.closest(to: typed, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }
}
