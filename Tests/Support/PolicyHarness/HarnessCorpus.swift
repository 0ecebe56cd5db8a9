public import JSONSupport

/// Policies written by hand for what random ones reach too rarely for a sample run: each is run
/// through every engine and every claim of the analysis, with requests aimed at it, on every run.
public enum HarnessCorpus {
    static func policy(_ text: String) -> JSONObject {
        (try? JSONParser().parse(Array(text.utf8)))?.objectValue ?? JSONObject()
    }

    public static let policies: [(name: String, policy: JSONObject)] = [
        // Two cancels whose regions do not meet but one request's readings do (`/a%2Fb` is also
        // `/a/b`): swapped, they break the tie apart (``ReadingTieBreak`` in the analysis).
        (
            "readings that both cancel",
            policy(
                #"{"handlers": [{"name": "x", "type": "cancel", "action": "x1", "match": {"paths": ["/a/b"]}},"#
                    + #"{"name": "y", "type": "logout", "match": {"paths": ["/a%2Fb"]}}]}"#)
        ),
        // An allow pattern read apart by the standard (`https://a.example./x/y`) leaves the later
        // cancel reachable (docs/cli.md, the standard reading).
        (
            "the standard reading of urlPatterns",
            policy(
                #"{"handlers": [{"name": "allow-x", "type": "allow", "match": {"urlPatterns": [{"hostname": "a.example", "pathname": "/x/*"}]}},"#
                    + #"{"name": "block", "type": "cancel", "match": {"hosts": ["a.example"], "pathPatterns": ["/x/y*"]}}]}"#)
        ),
        // A location template, so a mutation of it must not be proven equivalent.
        (
            "a location",
            policy(
                #"{"defaultDecision": "cancel", "handlers": [{"name": "pay", "type": "payment-redirect", "match": {"hosts": ["pay.example.com"]}, "location": "https://checkout.example/?u={url}"},"#
                    + #"{"name": "open", "type": "allow", "match": {"hosts": ["*.example"]}}]}"#)
        ),
    ]
}
