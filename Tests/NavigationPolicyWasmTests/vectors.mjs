// The conformance-vector runner for the WebAssembly engine (config/conformance/README.md, "In a
// port's CI"), shared by the node suite and the Chromium page: no node or DOM API here.
//
// A file is read strictly (duplicate members, unknown, missing or mistyped fields refuse the whole
// file before any case runs), its bundle loaded as an app loads it, and every case decided and
// compared with `expect`: decision, handler, action, location and url byte for byte, the shadow
// list entry by entry, and a refusal exactly where the engine refuses.

/** Thrown for a file a runner must refuse (exit 2 in `navpolicyd test --vectors`). */
export class VectorFileError extends Error {}

/** The first member name repeated inside one object of `text` (valid JSON), or null. */
export function duplicateMember(text) {
  const objects = [];
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (character === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const literal = text.slice(index, end + 1);
      index = end + 1;
      let next = index;
      while (' \t\r\n'.includes(text[next])) next += 1;
      if (text[next] === ':') {
        const name = JSON.parse(literal);
        const members = objects[objects.length - 1];
        if (members.has(name)) return name;
        members.add(name);
      }
      continue;
    }
    if (character === '{') objects.push(new Set());
    else if (character === '[') objects.push(null);
    else if (character === '}' || character === ']') objects.pop();
    index += 1;
  }
  return null;
}

function check(condition, where, what) {
  if (!condition) throw new VectorFileError(`${where}: ${what}`);
}

function members(object, where, required, optional) {
  check(object !== null && typeof object === 'object' && !Array.isArray(object), where, 'must be an object');
  for (const name of Object.keys(object)) check(required.includes(name) || optional.includes(name), where, `unknown member "${name}"`);
  for (const name of required) check(name in object, where, `missing member "${name}"`);
}

const isText = (value) => typeof value === 'string';
const isTextOrNull = (value) => value === null || typeof value === 'string';

/** Parses and checks one vector file's text; throws VectorFileError for a file to refuse. */
export function readVectorFile(text, file) {
  let document;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new VectorFileError(`${file}: not JSON: ${error.message}`);
  }
  const duplicate = duplicateMember(text);
  check(duplicate === null, file, `duplicate member "${duplicate}"`);
  members(document, file, ['format', 'version', 'name', 'bundle', 'cases'], ['description']);
  check(document.format === 'navpolicy-conformance', file, 'format must be "navpolicy-conformance"');
  check(document.version === 1, file, `version ${document.version} is not one this runner knows (1)`);
  check(isText(document.name) && isText(document.bundle), file, 'name and bundle must be strings');
  check(Array.isArray(document.cases) && document.cases.length > 0, file, 'cases must be a non-empty array');
  document.cases.forEach((entry, index) => {
    const where = `${file} /cases/${index}`;
    members(entry, where, ['name', 'request', 'expect'], ['class']);
    members(entry.request, `${where}/request`, ['url'], ['method', 'navigationType', 'targetFrame', 'sourceURL']);
    for (const value of Object.values(entry.request)) check(isText(value), `${where}/request`, 'members must be strings');
    if (entry.expect.invalidRequest !== undefined) {
      members(entry.expect, `${where}/expect`, ['decision', 'invalidRequest'], []);
      check(entry.expect.invalidRequest === true && entry.expect.decision === 'cancel', `${where}/expect`, 'invalidRequest is true, with decision cancel');
    } else {
      members(entry.expect, `${where}/expect`, ['decision', 'handler', 'action', 'location', 'url'], ['shadow']);
      const { decision, handler, action, location, url, shadow } = entry.expect;
      check(decision === 'allow' || decision === 'cancel', `${where}/expect`, 'decision must be allow or cancel');
      check(isTextOrNull(handler) && isTextOrNull(action) && isTextOrNull(location) && isText(url), `${where}/expect`, 'mistyped member');
      if (shadow !== undefined) {
        check(Array.isArray(shadow), `${where}/expect/shadow`, 'must be an array');
        shadow.forEach((result, position) => {
          members(result, `${where}/expect/shadow/${position}`, ['handler', 'decision', 'action', 'location'], []);
        });
      }
    }
  });
  return document;
}

const decisionMembers = ['decision', 'handler', 'action', 'location', 'url'];

/** What differs between the engine's `actual` answer and `expect` (empty: the case passes). */
export function differences(expect, actual) {
  if (expect.invalidRequest) {
    return actual.invalidRequest ? [] : ['expected the request to be refused as invalid, but the engine decided it'];
  }
  if (actual.invalidRequest) return [`expected a decision, but the engine refused the request: ${actual.error}`];
  const problems = decisionMembers.filter((name) => actual[name] !== expect[name]).map((name) => `${name} differs`);
  if (JSON.stringify(actual.shadow ?? null) !== JSON.stringify(expect.shadow ?? null)) problems.push('shadow differs');
  return problems;
}

/**
 * Runs one checked vector file with `NavigationPolicy` (the module's class): loads its bundle
 * without keys, as the README says, and decides every case. A request the engine refuses must
 * throw a NavigationPolicyError of code `invalid-request`; any other error fails the case.
 */
export async function runVectorFile(NavigationPolicy, document, file) {
  const policy = await NavigationPolicy.fromBundle(new TextEncoder().encode(document.bundle));
  const failures = [];
  document.cases.forEach((entry, index) => {
    let actual;
    try {
      actual = policy.decide(entry.request);
    } catch (error) {
      actual = error.code === 'invalid-request' ? { invalidRequest: true, error: error.message } : { error: `${error.code}: ${error.message}` };
    }
    const problems = differences(entry.expect, actual);
    if (problems.length > 0) {
      failures.push({ file, case: `/cases/${index}`, name: entry.name, request: entry.request, expected: entry.expect, actual, problems });
    }
  });
  policy.release();
  return { file, name: document.name, passed: document.cases.length - failures.length, failed: failures.length, failures };
}

/** A failure as `navpolicyd test --vectors` prints it. */
export function describeFailure(failure) {
  return [
    `FAIL ${failure.file} ${failure.case} ${JSON.stringify(failure.name)}`,
    ...failure.problems.map((problem) => `  ${problem}`),
    `  request: ${JSON.stringify(failure.request)}`,
    `  expected: ${JSON.stringify(failure.expected)}`,
    `  actual: ${JSON.stringify(failure.actual)}`,
  ].join('\n');
}
