import Foundation

/// Where commands write, and what the terminal on the other end can show. `FileHandle` rather
/// than `print` so stderr is usable from any thread under Swift 6 and output is not held in a
/// buffer when the process exits. Tests inject their own, terminal or not.
package struct Output: Sendable {
    var writeOut: @Sendable (String) -> Void
    var writeErr: @Sendable (String) -> Void
    /// Writes progress text as is (no newline: it carries its own `\r`).
    var writeProgress: @Sendable (String) -> Void
    /// Writes bytes to stdout exactly as given (no newline): output that must be byte-identical
    /// to something else, such as a policy bundle.
    var writeBytes: @Sendable ([UInt8]) -> Void
    /// Colour in text output: only for a person at a terminal, never in pipes or files.
    package var usesColour: Bool
    /// Progress lines on stderr: only when stderr is a terminal, so logs and pipes stay clean.
    package var showsProgress: Bool

    package init(
        writeOut: @escaping @Sendable (String) -> Void, writeErr: @escaping @Sendable (String) -> Void,
        writeProgress: @escaping @Sendable (String) -> Void = { writeAll(Array($0.utf8), to: STDERR_FILENO) },
        writeBytes: (@Sendable ([UInt8]) -> Void)? = nil, usesColour: Bool = false, showsProgress: Bool = false
    ) {
        // Outputs that capture lines get the bytes as one line of text.
        self.writeBytes = writeBytes ?? { writeOut(String(decoding: $0, as: UTF8.self)) }
        self.writeOut = writeOut
        self.writeErr = writeErr
        self.writeProgress = writeProgress
        self.usesColour = usesColour
        self.showsProgress = showsProgress
    }

    /// The process's stdout and stderr; colour when stdout is a terminal and `NO_COLOR` is unset
    /// (https://no-color.org), progress when stderr is a terminal.
    package static var standard: Output {
        Output(
            writeOut: { writeAll(Array(($0 + "\n").utf8), to: STDOUT_FILENO) },
            writeErr: { writeAll(Array(($0 + "\n").utf8), to: STDERR_FILENO) },
            writeProgress: { writeAll(Array($0.utf8), to: STDERR_FILENO) },
            writeBytes: { writeAll($0, to: STDOUT_FILENO) },
            usesColour: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil,
            showsProgress: isatty(STDERR_FILENO) == 1)
    }

    /// Writes every byte with write(2). `FileHandle.write` traps when the reader has gone away
    /// (`navpolicyd validate | head -n 5`: EPIPE, since SIGPIPE is ignored); here that ends the
    /// process quietly with 141, the status a shell shows for a command ended by SIGPIPE, as
    /// `cat` or `grep` would. Other errors drop the rest of the text: there is nowhere to report them.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    if written < 0, errno == EPIPE { exit(141) }
                    return
                }
            }
        }
    }

    package func out(_ line: String) { writeOut(line) }
    package func err(_ line: String) { writeErr(line) }
    package func outBytes(_ bytes: [UInt8]) { writeBytes(bytes) }

    /// Rewrites the progress line in place (`\r`, no newline); nothing unless `showsProgress`.
    package func progress(_ text: String) {
        guard showsProgress else { return }
        writeProgress("\r\u{1B}[K\(text)")
    }

    /// Clears the progress line once the work is done.
    package func endProgress() {
        guard showsProgress else { return }
        writeProgress("\r\u{1B}[K")
    }
}

/// Exit statuses shared by every command.
package enum ExitCode {
    package static let success: Int32 = 0
    /// The command ran and the answer is "no": validation errors, failing policy tests.
    package static let failure: Int32 = 1
    /// Bad input: usage, flag values, unreadable or invalid files, invalid URLs.
    package static let usage: Int32 = 2
}
