// fromBundle checks a bundle exactly as the Swift client does (VerifiedBundle): key id, Ed25519
// signature (WebCrypto here), expiry, the compiled image; and it refuses each bad bundle with
// the very reason `navpolicyd bundle verify` (the client's checks) gives. Bundles are made by the
// real `navpolicyd bundle` at test time.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';

import { loadModule, makeBundle, root, run, scratch, signingKey, writeBundle } from './support.mjs';

const { NavigationPolicy, NavigationPolicyError } = await loadModule();
const config = join(root, 'config/navpolicy.json');
const logout = { url: 'https://app.example.com/logout', method: 'GET', navigationType: 'linkActivated', targetFrame: 'main' };

/** The refusal of `bytes` by fromBundle, and by `navpolicyd bundle verify` with the same key. */
async function refusals(directory, name, bytes, signature, trustedKeys) {
  let thrown = null;
  try {
    await NavigationPolicy.fromBundle(bytes, { trustedKeys, signature });
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof NavigationPolicyError, `${name}: fromBundle accepted it`);
  const path = writeBundle(directory, name, bytes, signature);
  const keys = Object.entries(trustedKeys ?? {}).flatMap(([id, key]) => ['--bundle-key', `${id}:${key}`]);
  const swift = run(['bundle', 'verify', path, ...keys]);
  assert.equal(swift.status, 2, `${name}: bundle verify accepted it`);
  return { thrown, swift: swift.stderr };
}

describe('fromBundle', () => {
  let directory;
  let key;
  let other;
  let trusted;
  before(() => {
    directory = scratch();
    key = signingKey(directory, 'app');
    other = signingKey(directory, 'other');
    trusted = { 'app-2026': key.publicKey };
  });

  for (const layout of ['json', 'compiled']) {
    test(`a good signed ${layout} bundle decides as the config does, with its signed stamp`, async () => {
      const args = ['--sign', key.pem, '--key-id', 'app-2026', '--policy-version', '5', ...(layout === 'compiled' ? ['--compiled'] : [])];
      const bundle = makeBundle(directory, `good-${layout}`, config, args);
      const policy = await NavigationPolicy.fromBundle(bundle.bytes, { trustedKeys: trusted, signature: bundle.signature });
      assert.equal(policy.layout, layout);
      assert.equal(policy.policyVersion, 5);
      assert.equal(policy.keyId, 'app-2026');
      assert.match(policy.revision, /^sha256:[0-9a-f]{64}$/);
      const fromConfig = NavigationPolicy.fromConfig(await import('node:fs').then((fs) => fs.readFileSync(config, 'utf8')));
      assert.deepEqual(policy.decide(logout), fromConfig.decide(logout));
      assert.deepEqual(policy.decide(logout), {
        decision: 'cancel', handler: 'logout', action: 'logout', location: null, url: 'https://app.example.com/logout',
      });
      // The signature as bytes works as well as base64 text.
      const raw = Uint8Array.from(atob(bundle.signature), (c) => c.charCodeAt(0));
      await NavigationPolicy.fromBundle(bundle.bytes, { trustedKeys: trusted, signature: raw });
    });

    test(`${layout}: a key id that is not trusted is unknown-key, as in the Swift client`, async () => {
      const bundle = makeBundle(directory, `other-id-${layout}`, config, ['--sign', other.pem, '--key-id', 'retired', ...(layout === 'compiled' ? ['--compiled'] : [])]);
      const { thrown, swift } = await refusals(directory, `other-id-${layout}`, bundle.bytes, bundle.signature, trusted);
      assert.equal(thrown.code, 'unknown-key');
      assert.ok(swift.includes(`${thrown.code}: ${thrown.message}`), swift);
    });

    test(`${layout}: a changed byte or another key's signature is bad-signature`, async () => {
      const bundle = makeBundle(directory, `tampered-${layout}`, config, ['--sign', key.pem, '--key-id', 'app-2026', ...(layout === 'compiled' ? ['--compiled'] : [])]);
      const tampered = bundle.bytes.slice();
      // Inside the revision's hex digits (JSON) or the image's last byte (compiled): still well-formed.
      const at = layout === 'json' ? new TextDecoder().decode(tampered).indexOf('sha256:') + 10 : tampered.length - 1;
      tampered[at] = tampered[at] === 0x61 ? 0x62 : 0x61;
      const first = await refusals(directory, `tampered-${layout}`, tampered, bundle.signature, trusted);
      assert.equal(first.thrown.code, 'bad-signature');
      assert.ok(first.swift.includes(`${first.thrown.code}: ${first.thrown.message}`), first.swift);
      const forged = makeBundle(directory, `forged-${layout}`, config, ['--sign', other.pem, '--key-id', 'app-2026', ...(layout === 'compiled' ? ['--compiled'] : [])]);
      const second = await refusals(directory, `forged-${layout}`, forged.bytes, forged.signature, trusted);
      assert.equal(second.thrown.code, 'bad-signature');
    });

    test(`${layout}: an expired bundle is expired, with the client's reason`, async () => {
      const bundle = makeBundle(directory, `expired-${layout}`, config, [
        '--sign', key.pem, '--key-id', 'app-2026', '--issued-at', '1700000000', '--lifetime', '60', '--allow-expired',
        ...(layout === 'compiled' ? ['--compiled'] : []),
      ]);
      const { thrown, swift } = await refusals(directory, `expired-${layout}`, bundle.bytes, bundle.signature, trusted);
      assert.equal(thrown.code, 'expired');
      assert.match(thrown.message, /^expired at 2023-11-14T22:14:20Z; it is /);
      assert.ok(swift.includes(`${thrown.code}: ${thrown.message.slice(0, 40)}`), swift);
    });
  }

  test('a signed bundle without its signature is unsigned; a signature that is not base64 is bad-signature', async () => {
    const bundle = makeBundle(directory, 'unsigned', config, ['--sign', key.pem, '--key-id', 'app-2026']);
    await assert.rejects(NavigationPolicy.fromBundle(bundle.bytes, { trustedKeys: trusted }), { code: 'unsigned' });
    await assert.rejects(NavigationPolicy.fromBundle(bundle.bytes, { trustedKeys: trusted, signature: '%%%' }), { code: 'bad-signature' });
    // The good signature written as navpolicyd and the Swift client would not read it (unpadded,
    // whitespace inside) is refused, as they refuse it (outside attack round 11, F8); whitespace
    // around it is not part of it.
    const good = makeBundle(directory, 'strict-base64', config, ['--sign', key.pem, '--key-id', 'app-2026']);
    assert.ok(good.signature.endsWith('=='), good.signature);
    for (const text of [good.signature.replace(/=+$/, ''), `${good.signature.slice(0, 40)} ${good.signature.slice(40)}`, `${good.signature.slice(0, 40)}\n${good.signature.slice(40)}`]) {
      await assert.rejects(NavigationPolicy.fromBundle(good.bytes, { trustedKeys: trusted, signature: text }), { code: 'bad-signature' }, text);
    }
    await NavigationPolicy.fromBundle(good.bytes, { trustedKeys: trusted, signature: ` ${good.signature}\n` });
  });

  test('a JSON bundle is refused from its head, before its chain is parsed: unknown-key, unsigned, bad-signature', async () => {
    // The chain is not JSON: a reader that parsed it before choosing the key would say malformed,
    // and would have grown linear memory by the parse of a 32 MiB bundle (attack round 7, F7).
    const text = `{"format":"navpolicy-bundle","version":2,"revision":"sha256:${'a'.repeat(64)}","policyVersion":1,"issuedAt":4070908800,"expiresAt":4102444800,"keyId":"retired","policy":{not json}`;
    const untrusted = await refusals(directory, 'head-untrusted', new TextEncoder().encode(text), btoa('x'.repeat(64)), trusted);
    assert.equal(untrusted.thrown.code, 'unknown-key');
    assert.ok(untrusted.swift.includes(`${untrusted.thrown.code}: ${untrusted.thrown.message}`), untrusted.swift);
    const named = new TextEncoder().encode(text.replace('"retired"', '"app-2026"'));
    await assert.rejects(NavigationPolicy.fromBundle(named, { trustedKeys: trusted }), { code: 'unsigned' });
    const forged = await refusals(directory, 'head-forged', named, btoa('x'.repeat(64)), trusted);
    assert.equal(forged.thrown.code, 'bad-signature');
    assert.ok(forged.swift.includes(`${forged.thrown.code}: ${forged.thrown.message}`), forged.swift);
    // A keyId after the policy names no key before it: refused the same way by both.
    const late = new TextEncoder().encode(text.replace(',"keyId":"retired"', '').replace('{not json}', '{},"keyId":"app-2026"'));
    const after = await refusals(directory, 'head-late', late, btoa('x'.repeat(64)), trusted);
    assert.equal(after.thrown.code, 'unknown-key');
    assert.ok(after.swift.includes(`${after.thrown.code}: ${after.thrown.message}`), after.swift);
  });

  test('a truncated compiled image is malformed; a corrupt one fails the image checksum (portable BLAKE2b)', async () => {
    const bundle = makeBundle(directory, 'image', config, ['--compiled']);
    const truncated = bundle.bytes.slice(0, bundle.bytes.length - 7);
    const cut = await refusals(directory, 'truncated', truncated, null, undefined);
    assert.equal(cut.thrown.code, 'malformed');
    assert.ok(cut.swift.includes(`${cut.thrown.code}: ${cut.thrown.message}`), cut.swift);
    // Unsigned, so only the image checksum can catch a changed byte in the image's last section.
    const corrupt = bundle.bytes.slice();
    corrupt[corrupt.length - 1] ^= 0x01;
    await assert.rejects(NavigationPolicy.fromBundle(corrupt), (error) => {
      assert.equal(error.code, 'invalid-policy');
      assert.match(error.message, /checksum mismatch/);
      return true;
    });
  });

  test('a rollback shows in policyVersion: the app keeps the newer bundle', async () => {
    const newer = makeBundle(directory, 'v7', config, ['--sign', key.pem, '--key-id', 'app-2026', '--policy-version', '7']);
    const older = makeBundle(directory, 'v3', config, ['--sign', key.pem, '--key-id', 'app-2026', '--policy-version', '3']);
    const held = await NavigationPolicy.fromBundle(newer.bytes, { trustedKeys: trusted, signature: newer.signature });
    const offered = await NavigationPolicy.fromBundle(older.bytes, { trustedKeys: trusted, signature: older.signature });
    assert.equal(held.policyVersion, 7);
    assert.equal(offered.policyVersion, 3);
    // What docs/integrations/web.md tells an app to do with it.
    assert.ok(!(offered.policyVersion > held.policyVersion), 'the older bundle must not replace the newer one');
  });

  test('bad arguments are NavigationPolicyErrors, never a crash', async () => {
    await assert.rejects(NavigationPolicy.fromBundle('not bytes'), { code: 'invalid-argument' });
    await assert.rejects(NavigationPolicy.fromBundle(new Uint8Array(0)), { code: 'malformed' });
    await assert.rejects(NavigationPolicy.fromBundle(new Uint8Array([0x7b])), { code: 'malformed' });
    await assert.rejects(
      NavigationPolicy.fromBundle(new Uint8Array(1), { trustedKeys: { k: 'c2hvcnQ=' } }),
      { code: 'invalid-argument' });
  });
});
