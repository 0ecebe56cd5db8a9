// The navpolicyd side of bench/urlpattern-vs-rust.sh: URLPattern.test(url) per call, in process.
// Built by that script with swiftc -O against a release build's PolicyPatterns (not part of the
// package: it measures the library as an app or the daemon links it).
//
//   urlpattern-match ITERATIONS REPEATS < cases.json
//
// cases.json: {"cases": [{"name": N, "pattern": [constructor arguments, as urlpattern
// --pattern-args], "inputs": [URL strings]}]}. Prints, per case and input, tab-separated:
// name, input, whether it matched, and ns per call of each repeat (ITERATIONS calls each).
import Glibc
import JSONSupport
import PolicyPatterns

func fail(_ message: String) -> Never {
    print("urlpattern-match: \(message)")
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let iterations = Int(arguments[1]), let repeats = Int(arguments[2]), iterations > 0,
    repeats > 0
else { fail("usage: urlpattern-match ITERATIONS REPEATS < cases.json") }
var text = ""
while let line = readLine(strippingNewline: false) { text += line }
guard let root = try? JSONParser().parse(text), let cases = root.objectValue?["cases"]?.arrayValue else {
    fail("stdin is not {\"cases\": [...]}")
}

let clock = ContinuousClock()
var sink = 0
for entry in cases {
    guard let object = entry.objectValue, let name = object["name"]?.stringValue,
        let patternArguments = object["pattern"]?.arrayValue, let inputs = object["inputs"]?.arrayValue
    else { fail("a case needs name, pattern and inputs") }
    let pattern: URLPattern
    do {
        pattern = try URLPattern(arguments: patternArguments)
    } catch {
        fail("\(name): new URLPattern() throws: \(error)")
    }
    for input in inputs {
        guard let url = input.stringValue else { fail("\(name): inputs are URL strings") }
        let matched = (try? pattern.test(.string(url))) ?? false
        // Warm-up: first-use costs (lazily built tables) are not a match's.
        for _ in 0..<min(iterations, 1_000) { sink &+= (try? pattern.test(.string(url))) == true ? 1 : 0 }
        var perCall: [String] = []
        for _ in 0..<repeats {
            let start = clock.now
            for _ in 0..<iterations { sink &+= (try? pattern.test(.string(url))) == true ? 1 : 0 }
            let elapsed = start.duration(to: clock.now)
            let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
            perCall.append(String(nanoseconds / Double(iterations)))
        }
        print("\(name)\t\(url)\t\(matched)\t\(perCall.joined(separator: ","))")
    }
}
// Keeps the optimizer from dropping the calls.
if sink == -1 { print(sink) }
