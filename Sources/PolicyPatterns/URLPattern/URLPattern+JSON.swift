public import JSONSupport

/// The JSON forms WPT's `urlpatterntestdata.json` (and `navpolicyd urlpattern exec`) write the
/// constructor's and `exec()`'s arguments and results in.
extension URLPatternInput {
    /// A string, or an object read as a `URLPatternInit` (members other than the components and
    /// `baseURL` are ignored, as WebIDL ignores unknown dictionary members).
    public init(json: JSONValue) throws(URLPatternError) {
        switch json {
        case .string(let string):
            self = .string(string)
        case .object(let object):
            var dictionary = URLPatternInit()
            for name in URLPatternInit.componentNames + ["baseURL"] {
                guard let value = object[name] else { continue }
                guard let string = value.stringValue else {
                    throw URLPatternError(.arguments, "'\(name)' must be a string, not \(value.kindName)")
                }
                if name == "baseURL" {
                    dictionary.baseURL = string
                } else {
                    dictionary[component: name] = string
                }
            }
            self = .dictionary(dictionary)
        default:
            throw URLPatternError(.arguments, "a pattern or input must be a string or an object, not \(json.kindName)")
        }
    }

    /// The input as JSON: the string, or an object of the components given.
    public var json: JSONValue {
        switch self {
        case .string(let string):
            return .string(string)
        case .dictionary(let dictionary):
            var object = JSONObject()
            for name in URLPatternInit.componentNames {
                if let value = dictionary[component: name] { object.append(name, .string(value)) }
            }
            if let baseURL = dictionary.baseURL { object.append("baseURL", .string(baseURL)) }
            return .object(object)
        }
    }
}

extension URLPattern {
    /// Builds a pattern from the constructor's argument list as JSON: `[input]`,
    /// `[input, baseURL]`, `[input, options]` or `[input, baseURL, options]`; `[]` is `[{}]`.
    public init(arguments: [JSONValue]) throws(URLPatternError) {
        let input =
            try arguments.first.map { (value: JSONValue) throws(URLPatternError) in
                try URLPatternInput(json: value)
            } ?? .dictionary(URLPatternInit())
        var baseURL: String? = nil
        var optionsValue: JSONValue? = nil
        if arguments.count > 1 {
            if case .string(let string) = arguments[1] {
                baseURL = string
                if arguments.count > 2 { optionsValue = arguments[2] }
            } else if arguments.count == 2 {
                optionsValue = arguments[1]
            } else {
                throw URLPatternError(.arguments, "the second argument must be the base URL string when three are given")
            }
        }
        if arguments.count > 3 { throw URLPatternError(.arguments, "at most three arguments: input, baseURL, options") }
        var options = Options()
        if let optionsValue {
            guard let object = optionsValue.objectValue else {
                throw URLPatternError(.arguments, "options must be an object, not \(optionsValue.kindName)")
            }
            if let ignoreCase = object["ignoreCase"] {
                guard let flag = ignoreCase.boolValue else {
                    throw URLPatternError(.arguments, "'ignoreCase' must be a boolean, not \(ignoreCase.kindName)")
                }
                options.ignoreCase = flag
            }
        }
        try self.init(input, baseURL: baseURL, options: options)
    }

    /// `exec()` on its argument list as JSON: `[]` (an empty dictionary), `[input]` or `[input, baseURL]`.
    public func exec(arguments: [JSONValue]) throws(URLPatternError) -> URLPatternResult? {
        let (input, baseURL) = try Self.matchArguments(arguments)
        return try exec(input, baseURL: baseURL)
    }

    /// `test()` on its argument list as JSON (see ``exec(arguments:)``).
    public func test(arguments: [JSONValue]) throws(URLPatternError) -> Bool {
        try exec(arguments: arguments) != nil
    }

    private static func matchArguments(_ arguments: [JSONValue]) throws(URLPatternError) -> (URLPatternInput, String?) {
        if arguments.count > 2 { throw URLPatternError(.arguments, "at most two arguments: input, baseURL") }
        let input =
            try arguments.first.map { (value: JSONValue) throws(URLPatternError) in
                try URLPatternInput(json: value)
            } ?? .dictionary(URLPatternInit())
        guard arguments.count == 2 else { return (input, nil) }
        guard let baseURL = arguments[1].stringValue else {
            throw URLPatternError(.arguments, "the base URL must be a string, not \(arguments[1].kindName)")
        }
        return (input, baseURL)
    }
}

extension URLPatternResult {
    /// The result as `exec()` gives it: `inputs`, then each component's `input` and `groups`
    /// (a group that did not take part is `null`).
    public var json: JSONValue {
        var object = JSONObject()
        object.append("inputs", .array(inputs.map { $0.json }))
        for (name, result) in components {
            var groups = JSONObject()
            for group in result.groups { groups.append(group.name, group.value.map { .string($0) } ?? .null) }
            object.append(name, .object(["input": .string(result.input), "groups": .object(groups)]))
        }
        return .object(object)
    }
}
