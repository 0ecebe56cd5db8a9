#!/usr/bin/env node
// Generates Tests/NavigationPolicyTests/Resources/ecmaregex-property-vectors.json: Unicode property
// escapes \p{…} and \P{…} in (pattern, flags, input) cases with what V8's RegExp.prototype.exec
// returns, the oracle for ECMARegex's property escapes (RegexUnicodePropertyTests.v8Vectors).
//
//   node scripts/generate-regex-property-vectors.js > Tests/NavigationPolicyTests/Resources/ecmaregex-property-vectors.json
//
// Run with a Node whose ICU has the tables' Unicode version (17.0: Node 20.20.2 has ICU 78.2;
// the script refuses another). Every property family, each form (escape, class, negated class,
// \P inside classes, the v flag's -- and &&), each flag (u, ui, v, vi), on inputs chosen for case
// folding (the Kelvin sign, long s, final sigma, Cherokee, titlecase digraphs). Output format as
// generate-regex-vectors.js: "expected" is null, the exec array, or "error".
'use strict';

if (process.versions.unicode !== '17.0') {
  throw new Error(`Node's ICU has Unicode ${process.versions.unicode}; the tables are Unicode 17.0`);
}

// Where V8 in Node 20 (V8 11.3) departs from the ECMAScript text, the oracle runs an equivalent
// pattern V8 gets right: with v and i it does not fold a binary property before \P complements it
// (/\P{ASCII}/vi accepts "k" through U+212A; MaybeSimpleCaseFolding puts "k" in the folded set, so
// the complement lacks it), while [^\p{ASCII}] — the same set in the v flag's semantics — it gets
// right. Classes that are empty with v crash it (/[\P{Any}]/v), so Any appears only as \p{Any}.
function oracleFor(pattern, flags) {
  if (flags === 'vi') return pattern.replace(/\\P\{([^}]*)\}/g, '[^\\p{$1}]');
  return pattern;
}

const properties = [
  'L', 'Lu', 'gc=Ll', 'Nd', 'ASCII', 'Lowercase', 'Alphabetic', 'Hex_Digit', 'CWKCF', 'sc=Greek', 'Script=Cherokee',
  'scx=Deva',
];
const inputs = [
  'a', 'A', 'k', '\u212A', 's', '\u017F', '1', 'é', 'ß', '\u1E9E', 'Σ', 'σ', 'ς', 'ǅ', '\u0965', '\u13A0', '\uAB70',
  '\u0345',
];
const cases = [];
function add(pattern, flags) {
  const oracle = oracleFor(pattern, flags);
  for (const input of inputs) {
    let expected;
    try {
      const result = new RegExp(oracle, flags).exec(input);
      expected = result === null ? null : Array.from(result, (g) => (g === undefined ? null : g));
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      expected = 'error';
    }
    cases.push({ pattern, flags, input, expected });
  }
}
for (const p of properties) {
  const forms = [`\\p{${p}}`, `\\P{${p}}`, `[\\p{${p}}]`, `[^\\p{${p}}]`, `[\\P{${p}}]`, `[^\\P{${p}}]`];
  const setForms = [`[\\p{${p}}--[a-z]]`, `[\\p{${p}}&&\\p{ASCII}]`, `[\\P{${p}}--\\p{Lu}]`, `[[^\\p{${p}}]&&\\p{L}]`];
  for (const flags of ['u', 'ui', 'v', 'vi']) {
    for (const form of flags.startsWith('v') ? forms.concat(setForms) : forms) add(form, flags);
  }
}
for (const flags of ['u', 'ui', 'v', 'vi']) add('\\p{Any}', flags);
process.stdout.write('[\n' + cases.map((c) => JSON.stringify(c)).join(',\n') + '\n]\n');
