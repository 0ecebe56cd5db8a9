// Every conformance vector (config/conformance/*.json) decided by the WebAssembly engine in node:
// the same cases `navpolicyd test --vectors` runs against the Swift engine, 0 failures.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { conformanceDirectory, loadModule } from './support.mjs';
import { VectorFileError, describeFailure, duplicateMember, readVectorFile, runVectorFile } from './vectors.mjs';

const { NavigationPolicy } = await loadModule();
const files = readdirSync(conformanceDirectory).filter((name) => name.endsWith('.json')).sort();

test('there are vector files to run', () => {
  assert.ok(files.length >= 5, `only ${files.length} files in ${conformanceDirectory}`);
});

for (const file of files) {
  test(`conformance vectors: ${file}`, async (t) => {
    const document = readVectorFile(readFileSync(join(conformanceDirectory, file), 'utf8'), file);
    const result = await runVectorFile(NavigationPolicy, document, file);
    t.diagnostic(`${file} (${result.name}): ${result.passed} passed, ${result.failed} failed`);
    assert.equal(result.failed, 0, result.failures.map(describeFailure).join('\n'));
  });
}

test('the runner refuses a file with a duplicate member, as the README requires', () => {
  assert.equal(duplicateMember('{"a":1,"b":{"a":2},"c":[{"x":1},{"x":2}]}'), null);
  assert.equal(duplicateMember('{"a":1,"b":{"u":"\\"a\\"","u":2}}'), 'u');
  const text = readFileSync(join(conformanceDirectory, files[0]), 'utf8').replace('"format"', '"version": 1, "format"');
  assert.throws(() => readVectorFile(text, files[0]), VectorFileError);
});
