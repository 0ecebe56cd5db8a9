/// The HTML page the proxy shows a browser when the policy cancels a navigation.
enum PolicyPage {
    static func html(for enforced: EnforcedDecision) -> String {
        let decision = enforced.decision
        let handler = escape(decision.handler ?? "default decision")
        let action = escape(decision.action ?? "block")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Navigation blocked</title></head>
            <body>
            <h1 id="navpolicy-blocked">Navigation blocked by policy</h1>
            <p>The navigation to <code id="navpolicy-url">\(escape(decision.url))</code> was cancelled
            by <strong id="navpolicy-handler">\(handler)</strong> (action <code>\(action)</code>).</p>
            <p>Decision <code id="navpolicy-decision-id">\(escape(enforced.id))</code></p>
            </body></html>

            """
    }

    /// Escapes text for HTML element content and attribute values.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
