public import Testing

/// The tags that say where a suite runs (docs/testing.md has the table and how to tag a new suite).
///
/// `scripts/run-tests.py` reads them from the built test bundle and chooses each `swift test`
/// process's suites by them, so no hand-written name regex can miss a suite. A suite without any
/// of these tags is an ordinary one: it runs in every default run, in a serial shard if its target
/// may open sockets (IntegrationTests, HTTPServerTests), else in the parallel pool.
extension Tag {
    /// Starts `navpolicyd` or another process, or opens a socket: runs in a serial shard (its
    /// waits block a thread, which would starve the parallel pool), never in the parallel pool.
    @Tag public static var live: Self
    /// Opens no socket and starts no process even though its target is a live one: runs in the
    /// parallel pool.
    @Tag public static var inProcess: Self
    /// Pushes generated volume through the engine: a fixed-seed sample by default, every case
    /// with `NAVPOLICYD_TEST_VOLUME=full` (`make test-full`); see `TestVolume`.
    @Tag public static var volume: Self
    /// Drives headless Chromium.
    @Tag public static var browser: Self
    /// Drives code with concurrency or C interop (the HTTP server, proxy and tunnels, gRPC, the
    /// decision log, metrics, reload, the stores): runs under ThreadSanitizer and AddressSanitizer.
    @Tag public static var sanitizerRelevant: Self
    /// Says something only in an optimized build (object lifetimes the optimizer may end early,
    /// allocation counts): also runs in `make test-release-lifetimes`.
    @Tag public static var optimized: Self
}
