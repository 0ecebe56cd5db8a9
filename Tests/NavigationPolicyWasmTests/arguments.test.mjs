// fromBundle's arguments in every shape a caller can hand over (outside attack round 13): the
// trusted keys are a plain object of at least one key or left out, never read as "no key" from
// another shape (N1); and every failure, however the arguments fail to be read, is a
// NavigationPolicyError (N4). Each refused shape is given a bundle nobody trusted signed: it
// must not load.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';

import { loadModule, makeBundle, root, run, scratch, signingKey, thrown, writeBundle } from './support.mjs';

const { NavigationPolicy, NavigationPolicyError } = await loadModule();
const config = join(root, 'config/navpolicy.json');

describe('fromBundle\'s arguments (round 13: N1, N4)', () => {
  let trusted;
  let stranger;
  let forged;
  let unsigned;
  before(() => {
    const directory = scratch();
    trusted = signingKey(directory, 'trusted');
    stranger = signingKey(directory, 'stranger');
    // Signed by a key nobody trusts, under the trusted key's id; and not signed at all.
    forged = makeBundle(directory, 'forged', config, ['--sign', stranger.pem, '--key-id', 'k1']);
    unsigned = makeBundle(directory, 'unsigned', config);
    const verify = run(['bundle', 'verify', writeBundle(directory, 'verify', forged.bytes, forged.signature), '--bundle-key', `k1:${trusted.publicKey}`]);
    assert.equal(verify.status, 2, 'navpolicyd refuses the forged bundle');
  });

  const shapes = {
    'a Map': () => new Map([['k1', trusted.publicKey]]),
    'a class instance': () => new (class Keys { constructor() { this.k1 = trusted.publicKey; } })(),
    'an inherited key': () => Object.create({ k1: trusted.publicKey }),
    'a non-enumerable key': () => Object.defineProperty({}, 'k1', { value: trusted.publicKey, enumerable: false }),
    'a getter': () => ({ get k1() { return trusted.publicKey; } }),
    'a Symbol key': () => ({ [Symbol('k1')]: trusted.publicKey }),
    'URLSearchParams': () => new URLSearchParams({ k1: trusted.publicKey }),
    'an array': () => [trusted.publicKey],
    'an empty object': () => ({}),
    'an empty object without a prototype': () => Object.create(null),
    'null': () => null,
    'a string': () => `k1:${trusted.publicKey}`,
  };
  for (const [name, make] of Object.entries(shapes)) {
    test(`trustedKeys as ${name}: invalid-argument, the forged and the unsigned bundle do not load`, async () => {
      for (const bundle of [forged, unsigned]) {
        const error = await thrown(() => NavigationPolicy.fromBundle(bundle.bytes, { trustedKeys: make(), signature: bundle.signature }));
        assert.ok(error instanceof NavigationPolicyError, `${error}`);
        assert.equal(error.code, 'invalid-argument', `${error}`);
      }
    });
  }

  test('a plain object, with or without a prototype, is read: the forged bundle is bad-signature', async () => {
    for (const trustedKeys of [{ k1: trusted.publicKey }, Object.assign(Object.create(null), { k1: trusted.publicKey })]) {
      await assert.rejects(NavigationPolicy.fromBundle(forged.bytes, { trustedKeys, signature: forged.signature }), { code: 'bad-signature' });
      await assert.rejects(NavigationPolicy.fromBundle(unsigned.bytes, { trustedKeys }), { code: 'unsigned' });
    }
  });

  test('trustedKeys left out: nothing verified, as documented (tests and vectors)', async () => {
    assert.equal((await NavigationPolicy.fromBundle(unsigned.bytes)).keyId, null);
    assert.equal((await NavigationPolicy.fromBundle(unsigned.bytes, {})).keyId, null);
  });

  const unreadable = {
    'options null': () => [forged.bytes, null],
    'options a string': () => [forged.bytes, 'k1'],
    'an options getter that throws': () => [forged.bytes, { get trustedKeys() { throw new RangeError('no'); } }],
    'a revoked Proxy as trustedKeys': () => {
      const { proxy, revoke } = Proxy.revocable({ k1: trusted.publicKey }, {});
      revoke();
      return [forged.bytes, { trustedKeys: proxy, signature: forged.signature }];
    },
    'a Proxy whose ownKeys trap throws': () => [forged.bytes, { trustedKeys: new Proxy({}, { ownKeys() { throw new Error('trap'); } }), signature: forged.signature }],
    'a detached ArrayBuffer as the bundle': () => {
      const buffer = forged.bytes.slice().buffer;
      structuredClone(buffer, { transfer: [buffer] });
      return [buffer, { trustedKeys: { k1: trusted.publicKey }, signature: forged.signature }];
    },
    'a Uint8Array over a detached buffer as the bundle': () => {
      const view = forged.bytes.slice();
      structuredClone(view.buffer, { transfer: [view.buffer] });
      return [view, { trustedKeys: { k1: trusted.publicKey }, signature: forged.signature }];
    },
    'now inheriting from Date.prototype but no Date': () => [forged.bytes, { now: Object.create(Date.prototype) }],
    'now a Proxy around a Date': () => [forged.bytes, { now: new Proxy(new Date(), {}) }],
  };
  for (const [name, make] of Object.entries(unreadable)) {
    test(`${name}: a NavigationPolicyError (invalid-argument)`, async () => {
      const error = await thrown(() => NavigationPolicy.fromBundle(...make()));
      assert.ok(error instanceof NavigationPolicyError, `${error}`);
      assert.equal(error.code, 'invalid-argument', `${error}`);
    });
  }

  test('a Date\'s own getTime is not asked: the real time decides the expiry', async () => {
    const directory = scratch();
    const expired = makeBundle(directory, 'expired', config, ['--sign', trusted.pem, '--key-id', 'k1', '--issued-at', '1000', '--lifetime', '60', '--allow-expired']);
    const now = new Date();
    now.getTime = () => 1_030_000;  // within the bundle's life, were it asked
    await assert.rejects(
      NavigationPolicy.fromBundle(expired.bytes, { trustedKeys: { k1: trusted.publicKey }, signature: expired.signature, now }),
      { code: 'expired' });
  });
});
