import Foundation
import Testing

@testable import NavpolicydCommands

/// `validate` pads handler names and types itself; the text must be what Foundation's
/// `padding` gave, UTF-16 counting and truncation included.
@Suite("validate: chain column padding")
struct ValidatePaddingTests {
    @Test(
        "padded is Foundation's padding with spaces",
        arguments: ["", "h1", "logout", "é", "e\u{301}", "👍", "👍👍👍", "名前", "a-much-longer-handler-name-than-24"])
    func sameAsFoundation(text: String) {
        for length in 0...40 {
            #expect(
                ValidateCommand.padded(text, toLength: length)
                    == text.padding(toLength: length, withPad: " ", startingAt: 0), "length \(length)")
        }
    }
}
