import Testing

@testable import NavigationPolicyClient

/// Issue 26, item 11: the refresh interval an unsigned answer asks for is capped like the daemon's.
@Suite("bundle client max-age cap")
struct MaxAgeCapTests {
    @Test("max-age past one day is kept as one day; within it as given; invalid as absent")
    func cap() {
        #expect(BundleUpdater.acceptedMaxAge("max-age=999999999") == .seconds(86_400))
        #expect(BundleUpdater.acceptedMaxAge("no-transform, max-age=86401") == .seconds(86_400))
        #expect(BundleUpdater.acceptedMaxAge("max-age=86400") == .seconds(86_400))
        #expect(BundleUpdater.acceptedMaxAge("max-age=300, no-transform") == .seconds(300))
        #expect(BundleUpdater.acceptedMaxAge("max-age=0") == .seconds(0))
        #expect(BundleUpdater.acceptedMaxAge("max-age=1e9") == nil)
        #expect(BundleUpdater.acceptedMaxAge("max-age=9999999999") == nil)
        #expect(BundleUpdater.maximumMaxAgeSeconds == 86_400)
    }
}
