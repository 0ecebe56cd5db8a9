import Foundation

// Thin entry point: all behaviour lives in the command types, so tests can drive the binary
// exactly as users do and the exit status is the command's.
exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
