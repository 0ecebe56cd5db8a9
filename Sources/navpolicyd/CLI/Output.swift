import Foundation

/// Where commands write. `FileHandle` rather than `print` so stderr is usable from any
/// thread under Swift 6 and output is not held in a buffer when the process exits.
struct Output: Sendable {
    var writeOut: @Sendable (String) -> Void
    var writeErr: @Sendable (String) -> Void

    static let standard = Output(
        writeOut: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
        writeErr: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })

    func out(_ line: String) { writeOut(line) }
    func err(_ line: String) { writeErr(line) }
}

/// Exit statuses shared by every command.
enum ExitCode {
    static let success: Int32 = 0
    /// The command ran and the answer is "no": validation errors, failing policy tests.
    static let failure: Int32 = 1
    /// Bad input: usage, flag values, unreadable or invalid files, invalid URLs.
    static let usage: Int32 = 2
}
