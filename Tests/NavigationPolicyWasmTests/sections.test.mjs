// fromConfig refuses exactly the configs `navpolicyd validate` refuses, the daemon's own
// sections included (issue 43: "the section validators shared"): the module compiles configs
// with PolicySections' DaemonConfigSections, the declarations the daemon registers. The corpus
// is derived from what the daemon itself reports: `validate --format json` lists every section
// it accepts and every field of each (its effective settings), so a section or field the daemon
// gains is tried here without editing this file. Each config goes through both; the verdict and
// every error (pointer and message) must be the same.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { loadModule, navpolicyd, run, scratch } from './support.mjs';

const { NavigationPolicy } = await loadModule();
const directory = scratch();

/** Every section the daemon accepts, each as { name, fields: [{ path: ['bundle','keyId'], value }] }. */
function daemonSections() {
  const path = join(directory, 'empty.json');
  writeFileSync(path, '{"handlers":[]}');
  const result = run(['validate', '--config', path, '--format', 'json']);
  assert.equal(result.status, 0, result.stderr);
  return Object.entries(JSON.parse(result.stdout).settings).map(([name, settings]) => ({
    name,
    fields: Object.entries(settings).map(([key, shown]) => ({ path: key.split('.'), value: jsonValue(shown) })),
  }));
}

/** A setting as `validate` shows it, as config JSON: numbers, booleans and lists as they are, text quoted; null when unset. */
function jsonValue(shown) {
  if (shown === 'null') return null;
  try {
    return JSON.parse(shown);
  } catch {
    return shown;
  }
}

/** `{"handlers":[], <members>}` from [name, JSON text] pairs, in order (duplicates kept). */
function config(members) {
  return `{"handlers":[]${members.map(([name, text]) => `,${JSON.stringify(name)}:${text}`).join('')}}`;
}

/** The object text of [path, JSON text] entries, nested by path (`bundle.keyId` inside `bundle`), in order; duplicates kept. */
function objectText(entries) {
  const groups = [];
  for (const [path, text] of entries) {
    const last = groups.at(-1);
    if (path.length > 1 && last !== undefined && last.key === path[0] && last.nested) last.entries.push([path.slice(1), text]);
    else groups.push(path.length > 1 ? { key: path[0], nested: true, entries: [[path.slice(1), text]] } : { key: path[0], text });
  }
  return `{${groups.map((group) => `${JSON.stringify(group.key)}:${group.nested ? objectText(group.entries) : group.text}`).join(',')}}`;
}

/** Values of the wrong type for most fields, and numbers on both sides of 2^31, 2^32, 2^40, 2^50 and 2^53 (wasm32's `Int` has 32 bits). */
const wrongValues = ['null', 'true', '"text"', '""', '-1', '0', '1.5', '[]', '[1]', '{}'];
const largeNumbers = ['2147483647', '2147483648', '4294967296', '1099511627776', '1099511627777', '1125899906842624',
  '1125899906842625', '9007199254740991', '9007199254740992', '9007199254740993', '1e300'];

/**
 * The configs: per section, its defaults (valid), the section of other types, misspelt and given
 * twice; then each test value given to every field of the section at once (each field's error,
 * or none, is in the list compared), every field misspelt, every field given twice; then checks
 * across sections.
 */
function corpus(sections) {
  const configs = [];
  const everySection = [];
  for (const { name, fields } of sections) {
    const set = fields.filter((field) => field.value !== null);
    const defaults = objectText(set.map(({ path, value }) => [path, JSON.stringify(value)]));
    everySection.push([name, defaults]);
    configs.push(config([[name, defaults]]));
    for (const text of ['{}', '[]', 'null', '"text"', '1', '{"unknown":1}']) configs.push(config([[name, text]]));
    // Misspelt section names: a letter dropped, a capital, all lower case, a plural.
    for (const misspelt of new Set([name.slice(1), name[0].toUpperCase() + name.slice(1), name.toLowerCase(), `${name}s`])) {
      if (misspelt !== name) configs.push(config([[misspelt, '{}']]));
    }
    configs.push(config([[name, '{}'], [name, '{}']]));
    for (const text of wrongValues) configs.push(config([[name, objectText(fields.map(({ path }) => [path, text]))]]));
    const numeric = fields.filter((field) => typeof field.value === 'number');
    for (const text of largeNumbers) configs.push(config([[name, objectText(numeric.map(({ path }) => [path, text]))]]));
    const misspelt = (path, spelling) => [...path.slice(0, -1), spelling(path.at(-1))];
    configs.push(config([[name, objectText(fields.map(({ path }) => [misspelt(path, (key) => `${key}x`), '1']))]]));
    configs.push(config([[name, objectText(fields.map(({ path }) => [misspelt(path, (key) => key.toLowerCase()), '1']))]]));
    configs.push(config([[name, objectText(set.flatMap(({ path, value }) => [[path, JSON.stringify(value)], [path, JSON.stringify(value)]]))]]));
  }
  // Every section at once, and the checks across sections (listeners that clash).
  configs.push(config(everySection));
  configs.push(config([['proxy', '{"listen":"127.0.0.1:8080"}']]));
  configs.push(config([['proxy', '{"listen":"0.0.0.0:9000"}'], ['server', '{"adminListen":"127.0.0.1:9000"}']]));
  configs.push(config([['server', '{"listen":"127.0.0.1:7000"}'], ['proxy', '{"listen":"127.0.0.1:7001"}']]));
  configs.push(config([['extAuthz', '{"listen":"127.0.0.1:7002","grpcListen":"[::1]:7003","pathPrefix":"/authz"}']]));
  configs.push(config([['proxy', '{"upstream":"http://127.0.0.1:3000","connect":{"ports":[443,8443]}}']]));
  configs.push(config([['intake', '{"maxDatabaseBytes":1099511627776}'], ['decisionLog', '{"maxBytes":1099511627776}']]));
  configs.push(config([['server', '{"bundle":{"policyVersion":9007199254740991}}'], ['proxy', '{"maxResponseBytes":1125899906842624}']]));
  configs.push(config([['nonsense', '{}'], ['server', '{"threads":-1}'], ['decisionLog', '{"maxBytes":1}']]));
  return configs;
}

/** `navpolicyd validate --format json` of `text`: [] when valid, else each error as "pointer: message". */
function daemonVerdict(text, index) {
  const path = join(directory, `config-${index}.json`);
  writeFileSync(path, text);
  return new Promise((resolve, reject) => {
    execFile(navpolicyd, ['validate', '--config', path, '--format', 'json'], (error, stdout, stderr) => {
      if (error && error.code !== 1) return reject(new Error(`validate exited ${error.code}: ${stderr}`));
      const report = JSON.parse(stdout);
      resolve(report.valid ? [] : report.errors.map((entry) => (typeof entry === 'string' ? entry : `${entry.pointer}: ${entry.message}`)));
    });
  });
}

/** fromConfig of `text`: [] when it compiles, else the invalid-config errors. */
function moduleVerdict(text) {
  try {
    NavigationPolicy.fromConfig(text).release();
    return [];
  } catch (error) {
    if (error.code !== 'invalid-config') throw error;
    return error.errors;
  }
}

test('every config the daemon refuses fromConfig refuses with the same errors, and accepts the rest', async () => {
  const sections = daemonSections();
  for (const name of ['server', 'intake', 'proxy', 'decisionLog', 'extAuthz']) {
    assert.ok(sections.some((section) => section.name === name), `validate lists no ${name} section`);
  }
  const configs = corpus(sections);
  // Four validate processes at a time: each is mostly process start.
  const daemon = new Array(configs.length);
  let next = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < configs.length) {
      const index = next++;
      daemon[index] = await daemonVerdict(configs[index], index);
    }
  }));
  let accepted = 0;
  const differences = [];
  configs.forEach((text, index) => {
    const wasm = moduleVerdict(text);
    if (JSON.stringify(wasm) !== JSON.stringify(daemon[index])) differences.push({ config: text, navpolicyd: daemon[index], wasm });
    if (daemon[index].length === 0) accepted += 1;
  });
  assert.deepEqual(differences.slice(0, 5), [], `${differences.length} of ${configs.length} configs differ`);
  // Both verdicts are exercised, or the comparison would prove little.
  assert.ok(accepted >= 10 && configs.length - accepted >= 100, `accepted ${accepted} of ${configs.length}`);
});
