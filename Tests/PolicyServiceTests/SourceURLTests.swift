import PolicySections
import Testing

/// `policySource.url` is shown (status, logs, `validate`) without userinfo or a presigned
/// query, and fetched as written.
@Suite("policySource.url shown without secrets")
struct SourceURLTests {
    @Test(
        "userinfo and the query are replaced, the server and path stay",
        arguments: [
            ("https://bundles.example/fleet/policy.bundle", "https://bundles.example/fleet/policy.bundle"),
            (
                "http://alice:S3CRETPW@127.0.0.1:48090/b?X-Amz-Signature=SIGSECRET&X-Amz-Credential=AKIA",
                "http://***@127.0.0.1:48090/b?***"
            ),
            ("https://token@bundles.example/p", "https://***@bundles.example/p"),
            ("http://[::1]:8787/v1/policy/bundle?", "http://[::1]:8787/v1/policy/bundle?***"),
        ])
    func shown(configured: String, shown: String) {
        let url = SourceURL(text: configured)
        #expect(url.description == shown)
        #expect(url.text == configured)
        #expect(!url.description.contains("SECRET"))
    }
}
