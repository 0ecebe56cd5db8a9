/// "Parse a constructor string" (https://urlpattern.spec.whatwg.org/#constructor-string-parsing):
/// splits a whole-URL pattern such as `https://*.example.com/admin/*?x=*` into the components
/// of a ``URLPatternInit``, leaving each component's pattern text as written.
struct ConstructorStringParser {
    private enum State {
        case initial, `protocol`, authority, username, password, hostname, port, pathname, search, hash, done
    }

    private let input: [Unicode.Scalar]
    private let tokens: [PatternToken]
    private var result = URLPatternInit()
    private var componentStart = 0
    private var tokenIndex = 0
    private var tokenIncrement = 1
    private var groupDepth = 0
    private var hostnameIPv6BracketDepth = 0
    private var protocolMatchesSpecialScheme = false
    private var state = State.initial

    /// The components of `input`.
    static func parse(_ input: String) throws(URLPatternError) -> URLPatternInit {
        let tokens = try PatternTokenizer.tokenize(input, policy: .lenient)
        var parser = ConstructorStringParser(input: Array(input.unicodeScalars), tokens: tokens)
        try parser.run()
        return parser.result
    }

    private init(input: [Unicode.Scalar], tokens: [PatternToken]) {
        self.input = input
        self.tokens = tokens
    }

    private mutating func run() throws(URLPatternError) {
        while tokenIndex < tokens.count {
            tokenIncrement = 1
            if token(tokenIndex).kind == .end {
                if state == .initial {
                    rewind()
                    if isNonSpecialPatternChar(tokenIndex, "#") {
                        changeState(.hash, skip: 1)
                    } else if isSearchPrefix() {
                        changeState(.search, skip: 1)
                    } else {
                        changeState(.pathname, skip: 0)
                    }
                    tokenIndex += tokenIncrement
                    continue
                }
                if state == .authority {
                    rewind(andSetState: .hostname)
                    tokenIndex += tokenIncrement
                    continue
                }
                changeState(.done, skip: 0)
                break
            }
            if token(tokenIndex).kind == .open {
                groupDepth += 1
                tokenIndex += tokenIncrement
                continue
            }
            if groupDepth > 0 {
                if token(tokenIndex).kind == .close {
                    groupDepth -= 1
                } else {
                    tokenIndex += tokenIncrement
                    continue
                }
            }
            try step()
            tokenIndex += tokenIncrement
        }
        if result.hostname != nil, result.port == nil { result.port = "" }
    }

    /// The state machine's step for the current token.
    private mutating func step() throws(URLPatternError) {
        let isHashPrefix = isNonSpecialPatternChar(tokenIndex, "#")
        let isColon = isNonSpecialPatternChar(tokenIndex, ":")
        let isSlash = isNonSpecialPatternChar(tokenIndex, "/")
        let isAt = isNonSpecialPatternChar(tokenIndex, "@")
        switch state {
        case .initial:
            if isColon { rewind(andSetState: .protocol) }
        case .protocol:
            guard isColon else { return }
            let protocolComponent = try URLPatternComponent.compile(
                makeComponentString(), component: "protocol", options: .default,
                encode: URLPatternCanonicalization.protocol)
            protocolMatchesSpecialScheme = protocolComponent.matchesSpecialScheme
            var next = State.pathname
            var skip = 1
            if isNonSpecialPatternChar(tokenIndex + 1, "/"), isNonSpecialPatternChar(tokenIndex + 2, "/") {
                next = .authority
                skip = 3
            } else if protocolMatchesSpecialScheme {
                next = .authority
            }
            changeState(next, skip: skip)
        case .authority:
            if isAt {
                rewind(andSetState: .username)
            } else if isSlash || isSearchPrefix() || isHashPrefix {
                rewind(andSetState: .hostname)
            }
        case .username:
            if isColon {
                changeState(.password, skip: 1)
            } else if isAt {
                changeState(.hostname, skip: 1)
            }
        case .password:
            if isAt { changeState(.hostname, skip: 1) }
        case .hostname:
            if isNonSpecialPatternChar(tokenIndex, "[") {
                hostnameIPv6BracketDepth += 1
            } else if isNonSpecialPatternChar(tokenIndex, "]") {
                hostnameIPv6BracketDepth -= 1
            } else if isColon, hostnameIPv6BracketDepth == 0 {
                changeState(.port, skip: 1)
            } else if isSlash {
                changeState(.pathname, skip: 0)
            } else if isSearchPrefix() {
                changeState(.search, skip: 1)
            } else if isHashPrefix {
                changeState(.hash, skip: 1)
            }
        case .port:
            if isSlash {
                changeState(.pathname, skip: 0)
            } else if isSearchPrefix() {
                changeState(.search, skip: 1)
            } else if isHashPrefix {
                changeState(.hash, skip: 1)
            }
        case .pathname:
            if isSearchPrefix() {
                changeState(.search, skip: 1)
            } else if isHashPrefix {
                changeState(.hash, skip: 1)
            }
        case .search:
            if isHashPrefix { changeState(.hash, skip: 1) }
        case .hash, .done:
            break
        }
    }

    /// "Get a safe token": past the end, the end token.
    private func token(_ index: Int) -> PatternToken {
        if index >= 0, index < tokens.count { return tokens[index] }
        return tokens.last ?? PatternToken(kind: .end, index: input.count, value: "")
    }

    private func isNonSpecialPatternChar(_ index: Int, _ value: String) -> Bool {
        let token = token(index)
        guard token.value == value else { return false }
        return token.kind == .char || token.kind == .escapedChar || token.kind == .invalidChar
    }

    private func isSearchPrefix() -> Bool {
        if isNonSpecialPatternChar(tokenIndex, "?") { return true }
        guard token(tokenIndex).value == "?" else { return false }
        if tokenIndex - 1 < 0 { return true }
        switch token(tokenIndex - 1).kind {
        case .name, .regexp, .close, .asterisk: return false
        default: return true
        }
    }

    private mutating func rewind() {
        tokenIndex = componentStart
        tokenIncrement = 0
    }

    private mutating func rewind(andSetState newState: State) {
        rewind()
        state = newState
    }

    private func makeComponentString() -> String {
        let start = max(0, min(token(componentStart).index, input.count))
        let end = max(start, min(token(tokenIndex).index, input.count))
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: input[start..<end])
        return String(scalars)
    }

    private mutating func changeState(_ newState: State, skip: Int) {
        let value = makeComponentString()
        switch state {
        case .protocol: result.protocol = value
        case .username: result.username = value
        case .password: result.password = value
        case .hostname: result.hostname = value
        case .port: result.port = value
        case .pathname: result.pathname = value
        case .search: result.search = value
        case .hash: result.hash = value
        case .initial, .authority, .done: break
        }
        if state != .initial, newState != .done {
            let beforeHost: Set<State> = [.protocol, .authority, .username, .password]
            let beforePath = beforeHost.union([.hostname, .port])
            if beforeHost.contains(state), [.port, .pathname, .search, .hash].contains(newState),
                result.hostname == nil
            {
                result.hostname = ""
            }
            if beforePath.contains(state), [.search, .hash].contains(newState), result.pathname == nil {
                result.pathname = protocolMatchesSpecialScheme ? "/" : ""
            }
            if beforePath.union([.pathname]).contains(state), newState == .hash, result.search == nil {
                result.search = ""
            }
        }
        state = newState
        tokenIndex += skip
        componentStart = tokenIndex
        tokenIncrement = 0
    }
}
