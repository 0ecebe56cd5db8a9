#!/usr/bin/env bash
# Issue 41 item 3: URLPattern per match, navpolicyd against the Rust `urlpattern` crate, on the
# same patterns and inputs (bench/urlpattern-vs-rust-cases.json: literal, named `:id`, regexp
# `(\d+)`, `:id(\d+)`, `?` `*` `+` modifiers, wildcards in several components, a hostname
# `:sub`, a search group), in the same run on the same machine.
#
# How the comparison is made (printed again with the table):
#   - one call is URLPattern.test(url) on a URL string: parse the URL, match its eight
#     components; navpolicyd's in process (bench/urlpattern-match.swift, swiftc -O against the
#     release build's PolicyPatterns), the crate's through the PyPI wheel `urlpattern` 0.3.1
#     (PyO3 over denoland/rust-urlpattern 0.6.0 and the `regex` crate; the script checks the
#     wheel's bill of materials says so) from Python (bench/urlpattern-match.py, timeit);
#   - the Python side pays a per-call floor: the interpreter's call, the binding's argument
#     conversion. It is measured per pattern as test("x") (returns at once: not a URL) and
#     subtracted: "rust" = raw − floor. That also takes away the crate's own refusal of "x",
#     so the corrected figure flatters the crate slightly, never navpolicyd;
#   - ITERATIONS calls per repeat, REPEATS repeats per round, ROUNDS rounds alternating the two
#     sides (and BASELINE_BUILD's, if given); every figure is the median of all
#     REPEATS × ROUNDS repeats (ns per call);
#   - ratio = navpolicyd ns / rust ns: below 1 navpolicyd is faster.
#
#   bench/urlpattern-vs-rust.sh                       # .build/release must exist
#   BASELINE_BUILD=/work/main/.build/release bench/urlpattern-vs-rust.sh   # adds a before column
# Never an assertion on time.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD:-.build/release}"
baseline="${BASELINE_BUILD:-}"
iterations="${ITERATIONS:-20000}"
repeats="${REPEATS:-3}"
rounds="${ROUNDS:-3}"
work=.build/bench/urlpattern-vs-rust
venv=.build/bench/rust-urlpattern-venv
cases=bench/urlpattern-vs-rust-cases.json
mkdir -p "$work"

if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import urlpattern' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'urlpattern==0.3.1' >&2
fi
# The wheel must wrap the Rust crate: its CycloneDX bill of materials names what it was built from.
"$venv/bin/python" - <<'PY' >&2
import importlib.metadata, json, sys
distribution = importlib.metadata.distribution("urlpattern")
boms = [f for f in distribution.files if str(f).endswith(".cyclonedx.json")]
components = {c["name"]: c.get("version") for bom in boms for c in json.loads(bom.read_text()).get("components", [])}
if "urlpattern" not in components or "regex" not in components:
    sys.exit(f"the urlpattern wheel {distribution.version} does not list the Rust crates urlpattern and regex: {sorted(components)}")
print(f"reference: PyPI urlpattern {distribution.version} = Rust crate urlpattern {components['urlpattern']}, "
      f"regex {components['regex']}, url {components.get('url')}, pyo3 {components.get('pyo3')}")
PY

# driver BUILD_DIR OUT: bench/urlpattern-match.swift linked with that build's core objects.
driver() {
    local dir=$1 out=$2
    [[ -d $dir/Modules && -d $dir/PolicyPatterns.build ]] ||
        { echo "no release build at $dir (swift build -c release --product navpolicyd)" >&2; exit 2; }
    swiftc -O -module-name urlpatternmatch -I "$dir/Modules" bench/urlpattern-match.swift \
        "$dir"/PolicyPatterns.build/*.o "$dir"/URLStandard.build/*.o "$dir"/JSONSupport.build/*.o -o "$out"
}
driver "$build" "$work/navpolicyd-match"
[[ -n $baseline ]] && driver "$baseline" "$work/baseline-match"

: >"$work/navpolicyd.tsv"
: >"$work/rust.tsv"
: >"$work/baseline.tsv"
for ((round = 1; round <= rounds; round++)); do
    "$work/navpolicyd-match" "$iterations" "$repeats" <"$cases" >>"$work/navpolicyd.tsv"
    [[ -n $baseline ]] && "$work/baseline-match" "$iterations" "$repeats" <"$cases" >>"$work/baseline.tsv"
    "$venv/bin/python" bench/urlpattern-match.py "$iterations" "$repeats" <"$cases" >>"$work/rust.tsv"
done

python3 - "$work" "$iterations" "$repeats" "$rounds" <<'PY'
import math, statistics, sys
from collections import OrderedDict
work, iterations, repeats, rounds = sys.argv[1], *map(int, sys.argv[2:])

def load(name):
    rows = OrderedDict()
    try:
        lines = open(f"{work}/{name}.tsv").read().splitlines()
    except FileNotFoundError:
        return rows
    for line in lines:
        case, url, matched, values = line.split("\t")
        entry = rows.setdefault((case, url), {"matched": matched.lower(), "values": []})
        entry["values"] += [float(v) for v in values.split(",")]
    return {key: (entry["matched"], statistics.median(entry["values"])) for key, entry in rows.items()}

ours, rust, before = load("navpolicyd"), load("rust"), load("baseline")
print(f"URLPattern.test(url) per call, ns, median of {repeats} repeats x {rounds} rounds of {iterations:,} calls")
print("rust = the wheel's test() minus its per-call floor (test(\"x\") on the same pattern); ratio = navpolicyd / rust")
header = f"{'case':<24} {'input':<44} {'match':<5} {'navpolicyd':>10} {'rust raw':>9} {'floor':>6} {'rust':>7} {'raw×':>6} {'ratio':>6}"
print(header + (f" {'before':>8} {'before×':>8}" if before else ""))
per_case, per_case_before = OrderedDict(), OrderedDict()
for (case, url), (matched, ns) in ours.items():
    rust_matched, raw = rust[(case, url)]
    floor = rust[(case, "(floor)")][1]
    corrected = max(raw - floor, 1.0)
    agree = "yes" if matched == rust_matched else "DIFF"
    ratio = ns / corrected
    per_case.setdefault(case, []).append(ratio)
    shown = url if len(url) <= 44 else url[:41] + "..."
    line = f"{case:<24} {shown:<44} {agree:<5} {ns:>10.0f} {raw:>9.0f} {floor:>6.0f} {corrected:>7.0f} {ns / raw:>6.2f} {ratio:>6.2f}"
    if before:
        old = before[(case, url)][1]
        line += f" {old:>8.0f} {old / corrected:>8.2f}"
        per_case_before.setdefault(case, []).append(old / corrected)
    print(line)
print()
def geometric(ratios):
    return math.exp(sum(map(math.log, ratios)) / len(ratios))

print("per case, geometric mean of the ratios over its inputs (navpolicyd ns / rust ns, floor-corrected)"
      + (", and the same for BASELINE_BUILD:" if before else ":"))
groups, groups_before = [], []
for case, ratios in per_case.items():
    mean = geometric(ratios)
    line = f"  {case:<24} {mean:5.2f}x"
    if case in per_case_before:
        line += f"   before {geometric(per_case_before[case]):5.2f}x"
    if case != "literal":
        groups.append(mean)
        if case in per_case_before:
            groups_before.append(geometric(per_case_before[case]))
    print(line)
print(f"group patterns: {min(groups):.2f}x .. {max(groups):.2f}x the Rust crate (target: within 2x)")
if groups_before:
    print(f"group patterns before: {min(groups_before):.2f}x .. {max(groups_before):.2f}x")
PY
