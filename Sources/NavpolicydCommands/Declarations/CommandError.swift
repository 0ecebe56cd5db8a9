/// Why a command line cannot run; both kinds exit 2.
package enum CommandError: Error, Equatable, CustomStringConvertible {
    /// The command line is malformed (unknown flag, missing value): printed with a pointer to the
    /// command's help.
    case usage(String)
    /// A value the command checked itself (a navigation type, a method): the message already
    /// says what is wrong and what is allowed, so it is printed alone.
    case invalidValue(String)

    package var message: String {
        switch self {
        case .usage(let message), .invalidValue(let message): message
        }
    }

    package var description: String { message }
}
