import Foundation

/// How much of a volume suite's generated input a run covers: `NAVPOLICYD_TEST_VOLUME=full`
/// (`make test-full`) runs every case; anything else (the default, and CI) a fixed-seed sample.
///
/// The sample is a prefix of the full run's cases, so the seeds a sample runs are the seeds the
/// full run starts with and a failure in CI reproduces locally with the same seed; the full run
/// only adds cases. What each case asserts is the same in both.
public enum TestVolume {
    /// True when the environment asks for every case.
    public static let isFull: Bool = {
        ProcessInfo.processInfo.environment["NAVPOLICYD_TEST_VOLUME"] == "full"
    }()

    /// `full` in a full run, else `min(sample, full)`.
    public static func count(full: Int, sample: Int) -> Int {
        isFull ? full : min(sample, full)
    }

    /// The first `count(full:sample:)` of `seeds` (seeds of a parameterized volume test).
    public static func seeds<Seed: Sendable>(_ seeds: some Collection<Seed>, sample: Int) -> [Seed] {
        Array(seeds.prefix(count(full: seeds.count, sample: sample)))
    }
}
