// The JavaScript API's arguments held to the daemon's and the CLI's rules (outside attack round
// 12): a request or a config over the module's limit is refused from its length before linear
// memory, which never shrinks, grows by it (F3, F4); a trusted key id is one `navpolicyd bundle
// --key-id` accepts, and a bundle's keyId names it byte for byte (F6); `now` is a time or refused
// (F7); a signature's text may have ASCII whitespace around it and nothing else (F5).
// Each refusal is compared with what navpolicyd itself answers where it has the same input.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';

import { linearMemoryProbe, loadModule, makeBundle, root, run, scratch, signingKey, thrown, writeBundle } from './support.mjs';

const memoryBytes = linearMemoryProbe();
const { NavigationPolicy } = await loadModule();

const MiB = 1 << 20;
/** What a refusal may grow linear memory by: far below what a copy of the refused argument takes. */
const bound = 1 * MiB;
const config = join(root, 'config/navpolicy.json');
const emptyConfig = '{"defaultDecision":"allow","handlers":[]}';

describe('refused for their size before linear memory grows (F3, F4)', () => {
  let policy;
  let start;
  before(() => {
    policy = NavigationPolicy.fromConfig(readFileSync(config, 'utf8'));
    policy.decide({ url: 'https://app.example.com/' });
    start = memoryBytes();
  });

  const requests = [
    ['a 4M-unit URL', { url: `https://app.example.com/${'a'.repeat(4_000_000)}` }],
    ['a 4M-unit URL of two-byte characters', { url: `https://app.example.com/${'é'.repeat(4_000_000)}` }],
    ['a 4M-unit member the request has no use for', { url: 'https://a/', extra: 'x'.repeat(4_000_000) }],
  ];
  for (const [name, request] of requests) {
    test(`decide of ${name}: payload-too-large with its byte count, as the module words it, memory flat`, async () => {
      const error = await thrown(() => policy.decide(request));
      const bytes = Buffer.byteLength(JSON.stringify(request));
      assert.equal(error.code, 'payload-too-large', `${error}`);
      assert.equal(error.message, `the request is ${bytes} bytes; at most 65536`);
      const grown = memoryBytes() - start;
      assert.ok(grown <= bound, `linear memory grew by ${grown} bytes for a refused request`);
    });
  }

  test('a request short in units but over the limit in bytes is the module\'s same refusal', () => {
    const request = { url: `https://app.example.com/${'é'.repeat(40_000)}` };
    assert.throws(() => policy.decide(request), {
      code: 'payload-too-large',
      message: `the request is ${Buffer.byteLength(JSON.stringify(request))} bytes; at most 65536`,
    });
  });

  test('a 10M-character trusted key id: invalid-argument, memory flat', async () => {
    const key = signingKey(scratch(), 'long').publicKey;
    const error = await thrown(() =>
      NavigationPolicy.fromBundle(new TextEncoder().encode('{}'), { trustedKeys: { ['k'.repeat(10_000_000)]: key }, signature: btoa('x'.repeat(64)) }),
    );
    assert.equal(error.code, 'invalid-argument', `${error}`);
    assert.match(error.message, /a key id is 1 to 64 characters/);
    const grown = memoryBytes() - start;
    assert.ok(grown <= bound, `linear memory grew by ${grown} bytes for a refused key id`);
  });

  // navpolicyd validate's default --max-config-bytes, 64 MiB.
  const limit = 64 * MiB;
  test('fromConfig over 64 MiB: invalid-config in navpolicyd validate\'s words, memory flat', async () => {
    const text = ' '.repeat(limit + 1 - emptyConfig.length) + emptyConfig;
    const error = await thrown(() => NavigationPolicy.fromConfig(text));
    assert.equal(error.code, 'invalid-config', `${error}`);
    assert.equal(error.message, `the config is larger than the limit of ${limit} bytes: it is ${limit + 1} bytes`);
    assert.deepEqual(error.errors, [error.message]);
    const path = join(scratch(), 'big.json');
    writeFileSync(path, text);
    const validate = run(['validate', '--config', path]);
    assert.equal(validate.status, 2, validate.stdout);
    assert.ok(validate.stderr.includes(`is larger than the limit of ${limit} bytes`), validate.stderr);
    const grown = memoryBytes() - start;
    assert.ok(grown <= bound, `linear memory grew by ${grown} bytes for a refused config`);
  });

  test('fromConfig under 64 MiB in units but over it in bytes: refused alike, memory flat', async () => {
    const text = `{"defaultDecision":"allow","handlers":[],"x":"${'é'.repeat(limit / 2)}"}`;
    const error = await thrown(() => NavigationPolicy.fromConfig(text));
    assert.equal(error.code, 'invalid-config', `${error}`);
    assert.equal(error.message, `the config is larger than the limit of ${limit} bytes: it is ${Buffer.byteLength(text)} bytes`);
    const grown = memoryBytes() - start;
    assert.ok(grown <= bound, `linear memory grew by ${grown} bytes for a refused config`);
  });

  // Last: it copies 64 MiB into linear memory for good.
  test('fromConfig of exactly 64 MiB compiles, as navpolicyd validate takes it', () => {
    const text = ' '.repeat(limit - emptyConfig.length) + emptyConfig;
    assert.equal(NavigationPolicy.fromConfig(text).decide({ url: 'https://a.example/' }).decision, 'allow');
  });
});

describe('fromBundle\'s key ids, now and signature text (F5, F6, F7)', () => {
  let directory;
  let key;
  let signed;
  before(() => {
    directory = scratch();
    key = signingKey(directory, 'app');
    signed = makeBundle(directory, 'signed', config, ['--sign', key.pem, '--key-id', 'K1']);
  });

  const illegal = ['k1 ', ' k1', 'k1\0', 'k'.repeat(65), '', 'ｋ1', 'k/1', 'k\u03011', 'k1\n', 'K1:x'];
  for (const id of illegal) {
    test(`trusted key id ${JSON.stringify(id)}: invalid-argument, as navpolicyd refuses it`, async () => {
      const error = await thrown(() => NavigationPolicy.fromBundle(signed.bytes, { trustedKeys: { [id]: key.publicKey }, signature: signed.signature }));
      assert.equal(error.code, 'invalid-argument', `${error}`);
      assert.match(error.message, /is not a key id: a key id (is 1 to 64 characters|has only the characters A-Z a-z 0-9 \. _ -)/);
      if (id.includes('\0') || id.includes(':')) return;
      const swift = run(['bundle', 'verify', writeBundle(directory, 'verify', signed.bytes, signed.signature), '--bundle-key', `${id}:${key.publicKey}`]);
      assert.equal(swift.status, 2, `navpolicyd took the key id ${JSON.stringify(id)}`);
      assert.ok(swift.stderr.includes(error.message.slice(error.message.lastIndexOf('a key id'))), swift.stderr);
    });
  }

  test('a 64-character key id of every legal character is trusted', async () => {
    const id = `Az09._-${'k'.repeat(57)}`;
    const bundle = makeBundle(directory, 'long-id', config, ['--sign', key.pem, '--key-id', id]);
    const policy = await NavigationPolicy.fromBundle(bundle.bytes, { trustedKeys: { [id]: key.publicKey }, signature: bundle.signature });
    assert.equal(policy.keyId, id);
  });

  test('a keyId canonically equivalent to a trusted id (KELVIN SIGN for K) is unknown-key, as in navpolicyd', async () => {
    // The signed bundle with its keyId respelt and signed again, as a signer holding the key could.
    const text = Buffer.from(signed.bytes).toString('utf8');
    assert.ok(text.includes('"keyId":"K1"'));
    const path = join(directory, 'kelvin.bundle');
    writeFileSync(path, text.replace('"keyId":"K1"', '"keyId":"\u212A1"'));
    execFileSync('openssl', ['pkeyutl', '-sign', '-rawin', '-inkey', key.pem, '-in', path, '-out', `${path}.raw`]);
    const signature = readFileSync(`${path}.raw`).toString('base64');
    const bytes = new Uint8Array(readFileSync(path));
    const error = await thrown(() => NavigationPolicy.fromBundle(bytes, { trustedKeys: { K1: key.publicKey }, signature }));
    assert.equal(error.code, 'unknown-key', `${error}`);
    const swift = run(['bundle', 'verify', writeBundle(directory, 'kelvin-verify', bytes, signature), '--bundle-key', `K1:${key.publicKey}`]);
    assert.equal(swift.status, 2, swift.stdout);
    assert.ok(swift.stderr.includes(`unknown-key: ${error.message}`), `${swift.stderr} vs ${error.message}`);
  });

  test('now: a Date or a finite number of milliseconds is a time', async () => {
    for (const now of [undefined, new Date(), Date.now()]) {
      const policy = await NavigationPolicy.fromBundle(signed.bytes, { trustedKeys: { K1: key.publicKey }, signature: signed.signature, now });
      assert.equal(policy.keyId, 'K1');
    }
  });

  test('now: anything else is invalid-argument, never 1970 (an expired bundle stays refused)', async () => {
    const expired = makeBundle(directory, 'expired', config, ['--sign', key.pem, '--key-id', 'K1', '--issued-at', '1000', '--lifetime', '60', '--allow-expired']);
    const options = { trustedKeys: { K1: key.publicKey }, signature: expired.signature };
    await assert.rejects(NavigationPolicy.fromBundle(expired.bytes, options), { code: 'expired' });
    for (const now of [Symbol('t'), 5n, '', '0', [0], false, true, {}, NaN, Infinity, new Date(NaN)]) {
      const error = await thrown(() => NavigationPolicy.fromBundle(expired.bytes, { ...options, now }));
      assert.equal(error.code, 'invalid-argument', `now: ${String(now)}: ${error}`);
    }
  });

  // Each spelling read by the module and by `navpolicyd bundle verify` (the native readers'
  // SignatureText): both verify it, or both refuse it (round 13, N5: native took runs of extra
  // `=` and Unicode spaces the module refuses).
  const signatureTexts = [
    ['with ASCII whitespace around it', (text) => ` \t${text}\r\n`, null],
    ['with a trailing U+FEFF', (text) => `${text}\uFEFF`, 'bad-signature'],
    ['with a leading U+FEFF', (text) => `\uFEFF${text}`, 'bad-signature'],
    ['with a leading NBSP', (text) => `\u00A0${text}`, 'bad-signature'],
    ['with a trailing NBSP', (text) => `${text}\u00A0`, 'bad-signature'],
    ['with a trailing NEL', (text) => `${text}\u0085`, 'bad-signature'],
    ['with a leading ZWSP', (text) => `\u200B${text}`, 'bad-signature'],
    ['with a trailing U+3000', (text) => `${text}\u3000`, 'bad-signature'],
    ['with a trailing U+2028', (text) => `${text}\u2028`, 'bad-signature'],
    ['with a leading VT', (text) => `\u000B${text}`, 'bad-signature'],
    ['with a trailing FF', (text) => `${text}\u000C`, 'bad-signature'],
    ['with one extra =', (text) => `${text}=`, 'bad-signature'],
    ['with ten extra =', (text) => `${text}${'='.repeat(10)}`, 'bad-signature'],
    ['with its padding dropped', (text) => text.replace(/=+$/, ''), 'bad-signature'],
    ['with a character of the URL-safe alphabet', (text) => `-${text.slice(1)}`, 'bad-signature'],
  ];
  for (const [name, spell, code] of signatureTexts) {
    test(`a signature ${name}: ${code ?? 'verifies'}, in navpolicyd too`, async () => {
      const text = spell(signed.signature);
      const options = { trustedKeys: { K1: key.publicKey }, signature: text };
      if (code === null) {
        assert.equal((await NavigationPolicy.fromBundle(signed.bytes, options)).keyId, 'K1');
      } else {
        assert.notEqual(text, signed.signature, 'the spelling changes the text');
        await assert.rejects(NavigationPolicy.fromBundle(signed.bytes, options), { code });
      }
      const path = writeBundle(directory, 'spelt', signed.bytes, text);
      const swift = run(['bundle', 'verify', path, '--bundle-key', `K1:${key.publicKey}`]);
      assert.equal(swift.status, code === null ? 0 : 2, `navpolicyd bundle verify: ${swift.stderr}`);
    });
  }
});
