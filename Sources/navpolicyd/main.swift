import Foundation
import NavpolicydCommands

// Thin entry point: all behaviour lives in NavpolicydCommands, so tests can parse command lines
// in-process and drive the binary exactly as users do; the exit status is the command's.
exit(CommandLineTool.main(Array(CommandLine.arguments.dropFirst())))
