// Numbers read from input where the Wasm build's `Int` is 32 bits: a regexp's counted repetitions
// (`{n}`, `{n,m}`, `{n,}`) must repeat exactly their count, counts too big for any program must
// be refused with navpolicyd's own message, and a compiled image whose table holds a u32 past
// 2^31 must be refused as invalid-policy, not trap the module and lose every loaded policy.
// (The conformance vectors in url-patterns.json hold both engines to the same counted decisions.)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { loadModule, makeBundle, run, scratch } from './support.mjs';

const { NavigationPolicy, NavigationPolicyError } = await loadModule();

/** One cancel handler on `pathname`, default allow, as the outside tester's F1 config. */
function patternConfig(pathname) {
  return JSON.stringify({ handlers: [{ name: 'counted', type: 'cancel', match: { urlPatterns: [{ pathname }] } }] });
}

describe('counted repetitions', () => {
  const cases = [
    ['/user/(\\d{3})', ['/user/123', '/user/', '/user/12', '/user/1234']],
    ['/a/(a{2})', ['/a/', '/a/a', '/a/aa', '/a/aaa']],
    ['/a/(a{1,2})', ['/a/', '/a/a', '/a/aa', '/a/aaa']],
    ['/a/(a{2,})', ['/a/', '/a/a', '/a/aa', '/a/aaaaa']],
  ];
  for (const [pathname, paths] of cases) {
    test(`${pathname} decides as navpolicyd check does`, () => {
      const directory = scratch();
      const path = join(directory, 'config.json');
      writeFileSync(path, patternConfig(pathname));
      const policy = NavigationPolicy.fromConfig(patternConfig(pathname));
      for (const requestPath of paths) {
        const url = `https://app.example${requestPath}`;
        const swift = run(['check', '--config', path, '--format', 'json', url]);
        assert.equal(swift.status, 0, swift.stderr);
        assert.deepEqual(policy.decide({ url }), JSON.parse(swift.stdout), url);
      }
    });
  }

  test('the F1 URL is cancelled, not allowed', () => {
    const policy = NavigationPolicy.fromConfig(patternConfig('/user/(\\d{3})'));
    assert.equal(policy.decide({ url: 'https://app.example/user/123' }).decision, 'cancel');
    assert.equal(policy.decide({ url: 'https://app.example/user/' }).decision, 'allow');
  });

  test('counts past 32 bits or the instruction cap are refused with navpolicyd validate\'s errors', () => {
    for (const pattern of ['a{4294967297}', 'a{2147483648,}', 'a{0,4294967296}', 'a{100000}', '(?:){4294967297,4294967296}']) {
      const directory = scratch();
      const path = join(directory, 'config.json');
      const text = patternConfig(`/(${pattern})`);
      writeFileSync(path, text);
      const swift = JSON.parse(run(['validate', '--config', path, '--format', 'json']).stdout);
      assert.ok(swift.errors.length > 0, `${pattern}: navpolicyd validate accepted it`);
      assert.throws(() => NavigationPolicy.fromConfig(text), (error) => {
        assert.ok(error instanceof NavigationPolicyError);
        assert.equal(error.code, 'invalid-config');
        assert.deepEqual(error.errors, swift.errors.map((entry) => (typeof entry === 'string' ? entry : `${entry.pointer}: ${entry.message}`)));
        return true;
      }, pattern);
    }
  });
});

/**
 * `bytes` (an unsigned compiled bundle) with the u32 at `tableOffset + at` of its first 100-host
 * table set to `value`, and the image checksum (BLAKE2b-256 of image bytes 56..end, at 24..56)
 * recomputed so only the table's own checks can catch it.
 */
function tamperTable(bytes, at, value) {
  const data = Buffer.from(bytes);
  const image = data.indexOf(0x0a) + 1;
  const header = Buffer.alloc(8);
  header.writeUInt32LE(100, 0);
  header.writeUInt32LE(12, 4);
  const table = data.indexOf(header, image);
  assert.ok(table > image, 'the 100-host table is in the image');
  data.writeUInt32LE(value, table + at);
  const digest = execFileSync('python3', ['-c',
    'import hashlib,sys; sys.stdout.buffer.write(hashlib.blake2b(sys.stdin.buffer.read(), digest_size=32).digest())'],
  { input: data.subarray(image + 56) });
  digest.copy(data, image + 24);
  return new Uint8Array(data);
}

describe('compiled tables with u32s past 2^31', () => {
  const hosts = Array.from({ length: 100 }, (_, index) => `h${String(index).padStart(3, '0')}.example`);
  const config = JSON.stringify({ defaultDecision: 'allow', handlers: [{ name: 'block', type: 'cancel', match: { hosts } }] });

  // Key offset 0, the last key offset (past the key bytes) and the written-form count.
  for (const [name, at, value] of [['first key offset', 20, 0x80000000], ['key offset 50', 20 + 4 * 50, 0xfffffff0], ['written-form count', 12, 0x7ffffff0]]) {
    test(`${name} = ${value}: invalid-policy as navpolicyd refuses it, and loaded policies still decide`, async () => {
      const held = NavigationPolicy.fromConfig('{"handlers":[{"name":"logout","type":"logout","match":{"paths":["/logout"]}}]}');
      const directory = scratch();
      const configPath = join(directory, 'hosts.json');
      writeFileSync(configPath, config);
      const bundle = makeBundle(directory, 'hosts', configPath, ['--compiled']);
      const tampered = tamperTable(bundle.bytes, at, value);
      const path = join(directory, 'tampered.bundle');
      writeFileSync(path, tampered);
      const swift = run(['bundle', 'verify', path]);
      assert.equal(swift.status, 2, 'navpolicyd bundle verify accepted it');
      await assert.rejects(NavigationPolicy.fromBundle(tampered), (error) => {
        assert.ok(error instanceof NavigationPolicyError);
        assert.equal(error.code, 'invalid-policy', error.message);
        assert.ok(swift.stderr.includes(`${error.code}: ${error.message}`), `${error.message}\n${swift.stderr}`);
        return true;
      });
      assert.equal(held.decide({ url: 'https://a.example/logout' }).decision, 'cancel');
    });
  }
});
