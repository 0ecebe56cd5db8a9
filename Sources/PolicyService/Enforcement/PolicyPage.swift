/// The HTML page the proxy shows a browser when the policy cancels a navigation.
enum PolicyPage {
    static func html(for enforced: EnforcedDecision) -> String {
        let decision = enforced.decision
        let handler = HTMLText.escape(decision.handler ?? "default decision")
        let action = HTMLText.escape(decision.action ?? "block")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Navigation blocked</title></head>
            <body>
            <h1 id="navpolicy-blocked">Navigation blocked by policy</h1>
            <p>The navigation to <code id="navpolicy-url">\(HTMLText.escape(decision.url))</code> was cancelled
            by <strong id="navpolicy-handler">\(handler)</strong> (action <code>\(action)</code>).</p>
            <p>Decision <code id="navpolicy-decision-id">\(HTMLText.escape(enforced.id))</code></p>
            </body></html>

            """
    }
}
