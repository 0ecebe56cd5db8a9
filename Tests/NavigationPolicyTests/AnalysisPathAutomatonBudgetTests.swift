import Foundation
import TestSelection
import Testing

@testable import NavigationPolicy
@testable import PolicyAuthoring

/// Issue 32, outside attack 9, F5: at equal steps, chains mixing case-sensitive and
/// case-insensitive path patterns cost about 2.5× the CPU of the profiled shape. The path
/// automaton's exploration and the re-check of each of its witnesses are now charged to the run's
/// budget; these tests assert on steps, never on time. `ANALYSIS_SHAPES=1` also prints CPU
/// seconds per million steps for each shape (the figures quoted in the closing note).
@Suite("Analysis path automaton budget", .tags(.volume))
struct AnalysisPathAutomatonBudgetTests {
    /// Hosts, exact paths and prefixes in one case: the fast path, no automaton.
    static func plainChain(_ count: Int) -> String {
        let handlers = (0..<count).map { index in
            let match =
                switch index % 3 {
                case 0: #"{"hosts": ["h\#(index).example"], "paths": ["/route\#(index)"]}"#
                case 1: #"{"pathPrefixes": ["/section\#(index)"], "methods": ["POST"]}"#
                default: #"{"hosts": ["*.w\#(index).test"], "pathPatterns": ["/files\#(index)/*"]}"#
                }
            return #"{"name": "h\#(index)", "type": "\#(index % 2 == 0 ? "cancel" : "allow")", "match": \#(match)}"#
        }
        return #"{"defaultDecision": "allow", "handlers": [\#(handlers.joined(separator: ","))]}"#
    }

    /// The attack's shape: path patterns (some with `*` inside or `?`) in both case modes.
    static func mixedChain(_ count: Int) -> String {
        let handlers = (0..<count).map { index in
            let match =
                switch index % 4 {
                case 0: #"{"hosts": ["h\#(index).example"], "pathPatterns": ["/Route\#(index)/*"], "caseSensitive": true}"#
                case 1: #"{"pathPatterns": ["/route\#(index % 50)/*/edit", "/v?/x\#(index)"], "methods": ["POST"]}"#
                case 2: #"{"hosts": ["*.w\#(index).test"], "paths": ["/Files\#(index)"], "caseSensitive": true}"#
                default: #"{"pathPrefixes": ["/files\#(index % 70)"]}"#
                }
            return #"{"name": "h\#(index)", "type": "\#(index % 2 == 0 ? "cancel" : "allow")", "match": \#(match)}"#
        }
        return #"{"defaultDecision": "allow", "handlers": [\#(handlers.joined(separator: ","))]}"#
    }

    /// The path terms of every handler of `policy`, registered as the analysis does, not built.
    static func unbuiltRegions(_ policy: CompiledPolicy) -> PathRegions {
        var regions = PathRegions()
        for link in policy.links {
            for entry in link.matcher.analysisEntries {
                _ = regions.term(entry.test, caseSensitive: link.matcher.paths.caseSensitive)
            }
        }
        return regions
    }

    @Test("the automaton's work is charged: a mixed chain's regions cost steps that grow with the states explored")
    func explorationIsCharged() throws {
        let mixed = try compile(Self.mixedChain(400))
        var regions = Self.unbuiltRegions(mixed)
        let budget = AnalysisBudget(steps: 100_000_000)
        regions.build(fresh: "qz0", budget: budget)
        #expect(regions.automatonExact, "\(regions.inexactReason ?? "")")
        #expect(regions.productStates > 1_000)
        // Every state expanded reads each byte class through its live terms: at least a step per state.
        #expect(budget.spent >= regions.productStates, "\(budget.spent) steps for \(regions.productStates) states")
        // A budget below that work stops the exploration: the answers become unknown, never partial.
        var starved = Self.unbuiltRegions(mixed)
        let small = AnalysisBudget(steps: budget.spent / 4)
        starved.build(fresh: "qz0", budget: small)
        #expect(!starved.automatonExact)
        #expect(starved.inexactReason?.contains("ran out of steps") == true)
        #expect(starved.casesMixed && !starved.generalTerms.isEmpty, "claims resting on them stay unknown")
    }

    @Test("a mixed chain's reachability report is exact and its steps include the automaton's")
    func mixedReportSteps() throws {
        let mixed = try compile(Self.mixedChain(400))
        let (report, steps) = PolicyAnalysis.reachabilityReport(mixed)
        #expect(!report.contains { $0.reachable == nil }, "\(report.compactMap(\.unknownReason).prefix(3))")
        var regions = Self.unbuiltRegions(mixed)
        let budget = AnalysisBudget(steps: 100_000_000)
        regions.build(fresh: "qz0", budget: budget)
        #expect(steps > budget.spent, "the report's \(steps) steps include the regions' \(budget.spent)")
    }

    /// CPU seconds of this thread (user + system).
    static func cpuSeconds() -> Double {
        var usage = rusage()
        // RUSAGE_THREAD (1 on Linux; Glibc does not export the name to Swift).
        getrusage(__rusage_who_t(1), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }

    @Test(
        "measurement: CPU seconds per million steps by shape",
        .enabled(if: ProcessInfo.processInfo.environment["ANALYSIS_SHAPES"] != nil))
    func shapes() throws {
        let shapes: [(String, String)] = [
            ("plain 2,000", Self.plainChain(2_000)),
            ("mixed 2,000", Self.mixedChain(2_000)),
            ("generated 2,000 (every field)", GeneratedChain.config(handlers: 2_000, seed: 7, longList: 20)),
        ]
        // `ANALYSIS_SHAPES=mixed` measures only the shapes whose name starts with it (for perf).
        let only = ProcessInfo.processInfo.environment["ANALYSIS_SHAPES"] ?? ""
        for (name, config) in shapes where only == "1" || name.hasPrefix(only) {
            let policy = try compile(config)
            var regions = Self.unbuiltRegions(policy)
            let regionBudget = AnalysisBudget(steps: 200_000_000)
            let before = Self.cpuSeconds()
            regions.build(fresh: "qz0", budget: regionBudget)
            let built = Self.cpuSeconds() - before
            print(
                "shape \(name): path regions \(regionBudget.spent) steps, \(String(format: "%.3f", built)) CPU-s, "
                    + "\(String(format: "%.2f", built / Double(max(1, regionBudget.spent)) * 1_000_000)) s/Mstep, "
                    + "\(regions.productStates) states, \(regions.witnesses.count) regions, exact \(regions.automatonExact)")
            let other = try compile(config.replacing(#""type": "allow""#, with: #""type": "cancel""#, maxReplacements: 3))
            let start = Self.cpuSeconds()
            let (report, reportSteps) = PolicyAnalysis.reachabilityReport(policy)
            let middle = Self.cpuSeconds()
            let compared = PolicyAnalysis.equivalence(policy, other)
            let end = Self.cpuSeconds()
            let unknown = report.filter { $0.reachable == nil }.count
            print(
                "shape \(name): reachability \(reportSteps) steps, \(String(format: "%.2f", middle - start)) CPU-s, "
                    + "\(String(format: "%.2f", (middle - start) / Double(max(1, reportSteps)) * 1_000_000)) s/Mstep, "
                    + "\(unknown) unknown; comparison \(compared.steps) steps, \(String(format: "%.2f", end - middle)) CPU-s, "
                    + "\(String(format: "%.2f", (end - middle) / Double(max(1, compared.steps)) * 1_000_000)) s/Mstep, "
                    + "equivalent \(String(describing: compared.equivalent))")
        }
    }
}
