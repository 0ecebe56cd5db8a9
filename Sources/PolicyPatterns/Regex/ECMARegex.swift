/// An ECMAScript regular expression (the subset URLPattern uses, with the `u` flag semantics), matched in linear time.
///
/// Supported: alternation, groups `( )`, `(?: )`, `(?<name> )`, the quantifiers `* + ? {n} {n,}
/// {n,m}` greedy and lazy, `.`, classes with ranges, `\d \D \w \W \s \S \b \B`, character
/// escapes (`\n`, `\cX`, `\xHH`, `\uXXXX`, `\u{…}`, `\/`, …), `^` and `$` (no `m` flag) and the
/// `i` flag (Unicode simple case folding), and Unicode property escapes `\p{…}` `\P{…}`
/// (General_Category, Script, Script_Extensions and ECMA-262's binary properties, Unicode
/// ``unicodePropertyVersion``). With `unicodeSets`, classes take the `v` flag's syntax (nested
/// classes, `&&`, `--`). Refused, with an error naming the construct: backreferences, lookahead
/// and lookbehind (no linear-time engine runs them), `\q{…}` and the `v` flag's properties of
/// strings (they match sequences), modifiers `(?i: )`, unknown or loosely spelled property names,
/// and counted repetitions that expand beyond ``RegexProgram/maxInstructions`` instructions.
/// See docs/regex.md.
///
/// Matching is a Pike VM (Thompson NFA simulation with per-thread captures in priority order):
/// at most `2 × states × (input scalars + 1)` steps (states ≤ 33 × instructions), and captures exactly as
/// `RegExp.prototype.exec` gives them. A program where the next input scalar decides every
/// choice runs on ``RegexOnePass`` instead: one thread, one step per scalar, the same results.
public struct ECMARegex: Sendable {
    let program: RegexProgram
    /// The program's one-pass form, when the next scalar decides every choice (nearly every
    /// URLPattern expression): runs take it instead of the Pike VM, with the same results.
    let onePass: RegexOnePass?
    /// The name of each capture group (index 0 = group 1), nil for an unnamed one.
    public let captureNames: [String?]

    /// Compiles `pattern` (ECMAScript source, no slashes) with the `u` flag; `ignoreCase` = the `i` flag.
    /// Throws for a syntax error or a construct this engine does not support; the error names the construct and its offset.
    public init(_ pattern: String, ignoreCase: Bool = false) throws(ECMARegexError) {
        try self.init(pattern, ignoreCase: ignoreCase, unicodeSets: false)
    }

    /// Compiles `pattern` with the `v` flag when `unicodeSets` is true (the class syntax
    /// URLPattern's current text uses: nested classes, `&&` and `--`), else with the `u` flag.
    public init(_ pattern: String, ignoreCase: Bool = false, unicodeSets: Bool) throws(ECMARegexError) {
        var parser = RegexParser(pattern, ignoreCase: ignoreCase, unicodeSets: unicodeSets)
        let node = try parser.parse()
        program = try RegexCompiler.compile(node, captureCount: parser.captureCount, ignoreCase: ignoreCase)
        onePass = RegexOnePass(program)
        captureNames = parser.captureNames
    }

    /// The Unicode version of the property escapes' tables (the IDNA tables' version).
    package static let unicodePropertyVersion = UnicodePropertyTables.unicodeVersion

    /// Number of capture groups.
    public var captureCount: Int { program.captureCount }

    /// Runs the regex like `RegExp.prototype.exec` from index 0 (not sticky; the URLPattern regexps are anchored `^…$` themselves).
    /// nil = no match; otherwise element 0 is the whole match and element i the i-th group (nil when the group did not participate),
    /// as Swift Strings (UTF-16 index semantics do not leak: with the `u` flag the input is matched by code points).
    public func exec(_ input: String) -> [String?]? {
        execCountingSteps(input).result
    }

    /// Whether the regex matches anywhere in `input` (`RegExp.prototype.test`); stops at the
    /// first match any thread reaches instead of finishing ECMAScript's choice of captures.
    public func matches(_ input: String) -> Bool {
        if let onePass { return onePass.run(input, stepLimit: .max, captures: false).matched }
        var machine = RegexPikeVM(program: program, input: input.unicodeScalars.map { $0.value })
        return machine.run(firstMatchOnly: true) != nil
    }

    /// Instructions in the compiled program.
    package var programSize: Int { program.instructions.count }

    /// Whether the `i` flag is set (a literal then matches every scalar that folds alike).
    package var ignoresCase: Bool { program.ignoreCase }

    /// VM states per input index (instructions, some counted once more per empty-checked loop
    /// around them): the factor of the input length in the step bound.
    package var stateCount: Int { program.stateCount }

    /// The most steps ``execCountingSteps(_:)`` may take on an input of `scalarCount` scalars.
    package func stepBound(scalarCount: Int) -> Int {
        RegexPikeVM.stepBound(states: program.stateCount, inputCount: scalarCount)
    }

    /// ``exec(_:)`` and the steps the VM took (instructions visited plus threads stepped), so
    /// tests and the fuzz target can check the linear bound without timing anything.
    package func execCountingSteps(_ input: String) -> (result: [String?]?, steps: Int) {
        let run = exec(input, stepLimit: .max)
        return (run.result, run.steps)
    }

    /// ``exec(_:)`` that gives up once it has taken more than `stepLimit` steps (a policy
    /// decision's regexp budget): `exceeded` is then true and `result` nil, which means "not
    /// decided", never "no match". `steps` is what the run took (at most `stepLimit + 1`).
    package func exec(_ input: String, stepLimit: Int) -> (result: [String?]?, steps: Int, exceeded: Bool) {
        if let onePass {
            let run = onePass.run(input, stepLimit: stepLimit, captures: true)
            return (run.matched && !run.exceeded ? run.captures : nil, run.steps, run.exceeded)
        }
        return pikeVMExec(input, stepLimit: stepLimit)
    }

    /// Whether `input` matches, within `stepLimit` steps (nil: stopped there, not decided):
    /// ``exec(_:stepLimit:)`` without making the groups' strings, for callers that only need the
    /// answer (a policy decision). The same run, so the same steps.
    package func matches(_ input: String, stepLimit: Int) -> (matched: Bool?, steps: Int) {
        if let onePass {
            let run = onePass.run(input, stepLimit: stepLimit, captures: false)
            return (run.exceeded ? nil : run.matched, run.steps)
        }
        let scalars = input.unicodeScalars.map { $0.value }
        var machine = RegexPikeVM(program: program, input: scalars, stepLimit: stepLimit)
        let slots = machine.run()
        return (machine.exceededLimit ? nil : slots != nil, machine.steps)
    }

    /// Whether runs take the one-pass matcher rather than the Pike VM.
    package var isOnePass: Bool { onePass != nil }

    /// ``exec(_:stepLimit:)`` on the Pike VM even when a one-pass form exists: the reference
    /// the one-pass matcher is tested and fuzzed against.
    package func pikeVMExec(_ input: String, stepLimit: Int = .max) -> (result: [String?]?, steps: Int, exceeded: Bool) {
        let scalars = Array(input.unicodeScalars)
        var machine = RegexPikeVM(program: program, input: scalars.map { $0.value }, stepLimit: stepLimit)
        guard let slots = machine.run() else { return (nil, machine.steps, machine.exceededLimit) }
        var result: [String?] = []
        result.reserveCapacity(program.captureCount + 1)
        for group in 0...program.captureCount {
            let start = slots[2 * group]
            let end = slots[2 * group + 1]
            if start >= 0, end >= start, end <= scalars.count {
                result.append(String(String.UnicodeScalarView(scalars[start..<end])))
            } else {
                result.append(nil)
            }
        }
        return (result, machine.steps, false)
    }
}
