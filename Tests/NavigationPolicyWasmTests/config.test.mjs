// fromConfig and decide against the Swift engine's own answers (`navpolicyd check` and
// `validate` on the same files), the typed errors a caller cancels on, and the inputs that must be
// refused without trapping the module: a regexp nested past the engine's limit, JSON nested past
// the parser's, numbers at the edges of what the C shims parse.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { loadModule, root, run, scratch } from './support.mjs';

const { NavigationPolicy, NavigationPolicyError } = await loadModule();
const defaultConfig = join(root, 'config/navpolicy.json');

/** The URLs `navpolicyd bench` decides by default, and the bypass spellings around them. */
const urls = [
  'https://app.example.com/home', 'https://app.example.com/logout', 'https://app.example.com/%6Cogout',
  'https://pay.example.com/checkout?order=42', 'https://app.example.com/about', 'https://cdn.example.net/a/b/c.js',
  'https://APP.example.com/account/../sign_out;x=1', 'https://partner.example.org/landing?utm_source=app',
  'https://xn--nxasmq6b.example/logout', 'https://ΑΒΓ.example/about', 'http://0x7f.1/', 'https://[::ffff:127.0.0.1]/about',
];

describe('fromConfig', () => {
  test('decides every URL exactly as navpolicyd check does', () => {
    const policy = NavigationPolicy.fromConfig(readFileSync(defaultConfig, 'utf8'));
    for (const url of urls) {
      const swift = run(['check', '--config', defaultConfig, '--format', 'json', url]);
      assert.equal(swift.status, 0, swift.stderr);
      assert.deepEqual(policy.decide({ url }), JSON.parse(swift.stdout), url);
    }
  });

  test('an invalid config is invalid-config with the errors navpolicyd validate lists', () => {
    const directory = scratch();
    const path = join(directory, 'bad.json');
    const text = '{"handlers":[{"name":"x","type":"nope"},{"name":"y","type":"cancel","match":{"hosts":["*."]}}]}';
    writeFileSync(path, text);
    const swift = JSON.parse(run(['validate', '--config', path, '--format', 'json']).stdout);
    assert.throws(() => NavigationPolicy.fromConfig(text), (error) => {
      assert.ok(error instanceof NavigationPolicyError);
      assert.equal(error.code, 'invalid-config');
      assert.deepEqual(error.errors, swift.errors.map((entry) => (typeof entry === 'string' ? entry : `${entry.pointer}: ${entry.message}`)));
      return true;
    });
    assert.throws(() => NavigationPolicy.fromConfig('{"handlers": ['), { code: 'invalid-config' });
    assert.throws(() => NavigationPolicy.fromConfig(42), { code: 'invalid-argument' });
  });
});

describe('decide', () => {
  const policy = NavigationPolicy.fromConfig(readFileSync(defaultConfig, 'utf8'));

  test('a request it cannot read throws invalid-request with the field, as /v1/decide answers 400', () => {
    assert.throws(() => policy.decide({ url: 'not a url' }), { code: 'invalid-request', field: 'url' });
    assert.throws(() => policy.decide({}), { code: 'invalid-request', field: 'url' });
    assert.throws(() => policy.decide({ url: 5 }), { code: 'invalid-request', field: 'url' });
    assert.throws(() => policy.decide({ url: 'https://a.example/', navigationType: 'click' }), {
      code: 'invalid-request', field: 'navigationType',
      message: 'navigationType: unknown value "click"; expected one of "linkActivated", "formSubmitted", "backForward", "reload", "formResubmitted", "other"',
    });
    assert.throws(() => policy.decide({ url: 'https://a.example/', target: 'main' }), { code: 'invalid-request', field: 'target' });
    assert.throws(() => policy.decide(null), { code: 'malformed-json' });
    assert.throws(() => policy.decide('https://a.example/'), { code: 'malformed-json' });
    assert.throws(() => policy.decide({ url: 'https://a.example/'.padEnd(70000, 'a') }), { code: 'payload-too-large' });
    // The instance is still good after all of them.
    assert.equal(policy.decide({ url: 'https://app.example.com/logout' }).decision, 'cancel');
  });

  test('a released policy throws instead of deciding', () => {
    const released = NavigationPolicy.fromConfig('{"handlers":[]}');
    released.release();
    assert.throws(() => released.decide({ url: 'https://a.example/' }), { code: 'released' });
  });
});

describe('inputs at the engine limits are refused, never trap', () => {
  const pattern = (depth) => JSON.stringify({
    handlers: [{ name: 'deep', type: 'cancel', match: { urlPatterns: [{ pathname: `/(${'(?:'.repeat(depth)}a${')'.repeat(depth)})` }] } }],
  });

  test('a regexp nested deeper than the engine allows: the same error as navpolicyd validate', () => {
    const directory = scratch();
    const path = join(directory, 'deep.json');
    writeFileSync(path, pattern(99));
    const swift = JSON.parse(run(['validate', '--config', path, '--format', 'json']).stdout);
    assert.throws(() => NavigationPolicy.fromConfig(pattern(99)), (error) => {
      assert.equal(error.code, 'invalid-config');
      assert.match(error.message, /nested deeper than 100/);
      assert.deepEqual(error.errors, swift.errors.map((entry) => (typeof entry === 'string' ? entry : `${entry.pointer}: ${entry.message}`)));
      return true;
    });
    // The URLPattern group and 98 inside it: the deepest the engine takes.
    const deepest = NavigationPolicy.fromConfig(pattern(98));
    assert.equal(deepest.decide({ url: 'https://a.example/a' }).decision, 'cancel');
  });

  test('JSON nested 100,000 deep is invalid-config and the module keeps working', () => {
    assert.throws(() => NavigationPolicy.fromConfig('['.repeat(100000)), { code: 'invalid-config' });
    assert.throws(() => NavigationPolicy.fromConfig(`{"handlers":${'['.repeat(50000)}`), { code: 'invalid-config' });
    assert.equal(NavigationPolicy.fromConfig('{"defaultDecision":"cancel","handlers":[]}').decide({ url: 'https://a.example/' }).decision, 'cancel');
  });

  test('numbers read by the strtod shim as the native parser reads them (bundle inspect)', async () => {
    const directory = scratch();
    const revision = `sha256:${'0'.repeat(64)}`;
    for (const policyVersion of ['9007199254740991', '5e0', '0.7e1', '9007199254740993', '1e400', '1E-400', '-0']) {
      const text = `{"format":"navpolicy-bundle","version":2,"revision":"${revision}","policyVersion":${policyVersion},`
        + '"issuedAt":4102444800,"expiresAt":4102448400,"policy":{"handlers":[]}}';
      const path = join(directory, 'numbers.json');
      writeFileSync(path, text);
      const swift = run(['bundle', 'inspect', path, '--format', 'json']);
      let wasm;
      try {
        wasm = { policyVersion: (await NavigationPolicy.fromBundle(new TextEncoder().encode(text))).policyVersion };
      } catch (error) {
        wasm = { error: `${error.code}: ${error.message}` };
      }
      if (swift.status === 0) {
        assert.deepEqual(wasm, { policyVersion: JSON.parse(swift.stdout).policyVersion }, policyVersion);
      } else {
        assert.ok(wasm.error !== undefined && swift.stderr.includes(wasm.error), `${policyVersion}: ${wasm.error} | ${swift.stderr}`);
      }
    }
  });
});
