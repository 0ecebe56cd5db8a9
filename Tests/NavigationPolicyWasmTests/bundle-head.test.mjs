// fromBundle with trustedKeys refuses a bundle from its first 64 KiB alone, before the bundle is
// copied whole into the module's linear memory, which never shrinks: a forged 256 MiB compiled
// bundle naming an untrusted key grew it by 256 MiB before it was refused (attack round 10, F5).
// Each large forged bundle here must be refused with the Swift client's reason (`navpolicyd
// bundle verify`) while linear memory stays within a bound far below the bundle's size
// (docs/bundles.md, "What a reader reads before the signature").
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { forgedCompiledBundle as compiled, forgedJSONBundle as json, linearMemoryProbe, loadModule, run, scratch, signingKey, writeBundle } from './support.mjs';

const memoryBytes = linearMemoryProbe();
const { NavigationPolicy } = await loadModule();

const MiB = 1 << 20;
/** A forged bundle's size: any copy of one shows as growth far past `bound`. */
const size = 24 * MiB;
/** What a refusal from the head may grow linear memory by: the head's copy and its reading. */
const bound = 1 * MiB;

describe('fromBundle refuses a forged bundle from its head, before copying it whole', () => {
  let directory;
  let trusted;
  let start;
  before(async () => {
    directory = scratch();
    const key = signingKey(directory, 'app');
    trusted = { 'app-2026': key.publicKey };
    // A policy made first, so that what the module allocates on its first use is in `start`.
    NavigationPolicy.fromConfig('{"defaultDecision":"allow","handlers":[]}');
    start = memoryBytes();
  });

  const forged = btoa('x'.repeat(64));
  const cases = [
    ['a compiled bundle naming an untrusted key', () => compiled('nobody', size), forged, 'unknown-key'],
    ['a compiled bundle naming the trusted key, forged', () => compiled('app-2026', size), forged, 'bad-signature'],
    ['a compiled bundle naming the trusted key, with no signature', () => compiled('app-2026', size), null, 'unsigned'],
    ['a JSON bundle naming an untrusted key', () => json('nobody', size), forged, 'unknown-key'],
    ['a JSON bundle naming the trusted key, forged', () => json('app-2026', size), forged, 'bad-signature'],
    ['a JSON bundle over 32 MiB', () => json('app-2026', 33 * MiB), forged, 'too-large'],
    ['a JSON bundle whose head does not end within 64 KiB', () => json('k'.repeat(70_000), size), forged, 'malformed'],
    ['a compiled bundle whose head line is over 64 KiB', () => compiled('k'.repeat(70_000), size), forged, 'malformed'],
  ];
  for (const [name, make, signature, code] of cases) {
    test(`${name}: ${code}, as in the Swift client, and linear memory stays within ${bound / MiB} MiB of where it was`, async () => {
      const bytes = make();
      let thrown = null;
      try {
        await NavigationPolicy.fromBundle(bytes, { trustedKeys: trusted, signature });
      } catch (error) {
        thrown = error;
      }
      assert.equal(thrown?.code, code, `${name}: ${thrown}`);
      const grown = memoryBytes() - start;
      assert.ok(grown <= bound, `linear memory grew by ${grown} bytes for a ${bytes.length}-byte bundle refused from its head`);
      const path = writeBundle(directory, name.replaceAll(' ', '-'), bytes, signature);
      const swift = run(['bundle', 'verify', path, '--bundle-key', `app-2026:${trusted['app-2026']}`]);
      assert.equal(swift.status, 2, `${name}: bundle verify accepted it`);
      assert.ok(swift.stderr.includes(`${thrown.code}: ${thrown.message}`), `${swift.stderr} vs ${thrown.code}: ${thrown.message}`);
    });
  }

  // Last: it grows linear memory for good.
  test('without trustedKeys (tests, vectors) a bundle is read whole, as before: the probe sees the copy', async () => {
    await assert.rejects(NavigationPolicy.fromBundle(compiled('nobody', size)), { code: 'invalid-policy' });
    assert.ok(memoryBytes() - start >= size, `linear memory grew by only ${memoryBytes() - start} bytes`);
  });
});
