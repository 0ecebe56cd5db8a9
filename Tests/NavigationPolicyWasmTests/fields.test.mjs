// decide() sends a request's members to the module as strings (navpolicy_decide_fields) when
// JSON.stringify would write exactly those strings, and as JSON otherwise (navpolicy_decide). The
// two paths must answer alike: the same decision object, or the same NavigationPolicyError (code,
// field, message). A request whose prototype is not Object.prototype always goes as JSON, so
// each request is decided both ways here: every conformance case, and the shapes that sit on the
// line between the paths (null, undefined, functions, unknown members, lone surrogates, sizes).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { conformanceDirectory, loadModule, root } from './support.mjs';
import { readVectorFile } from './vectors.mjs';

const { NavigationPolicy, NavigationPolicyError } = await loadModule();

/** The same own members behind another prototype: JSON.stringify writes it alike; decide sends it as JSON. */
function asJSONPath(request) {
  if (request === null || typeof request !== 'object') return request;
  return Object.defineProperties(Object.create({}), Object.getOwnPropertyDescriptors(request));
}

function outcome(policy, request) {
  try {
    return { decision: policy.decide(request) };
  } catch (error) {
    assert.ok(error instanceof NavigationPolicyError, `${error}`);
    return { error: { code: error.code, field: error.field, message: error.message } };
  }
}

function assertSameBothWays(policy, request, label) {
  assert.deepEqual(outcome(policy, request), outcome(policy, asJSONPath(request)), label);
}

test('every conformance case: the same answer through the members as through JSON', async () => {
  const files = readdirSync(conformanceDirectory).filter((name) => name.endsWith('.json'));
  let cases = 0;
  for (const file of files) {
    const document = readVectorFile(readFileSync(join(conformanceDirectory, file), 'utf8'), file);
    const policy = await NavigationPolicy.fromBundle(new TextEncoder().encode(document.bundle));
    for (const entry of document.cases) {
      assertSameBothWays(policy, entry.request, `${file}: ${entry.name}`);
      cases += 1;
    }
    policy.release();
  }
  assert.ok(cases > 100, `only ${cases} cases`);
});

test('the shapes on the line between the two paths', () => {
  const policy = NavigationPolicy.fromConfig(readFileSync(join(root, 'config/navpolicy.json'), 'utf8'));
  const url = 'https://app.example.com/logout';
  const requests = [
    { url },
    { url: 'https://APP.example.com/account/../sign_out;x=1' },
    { url: 'https://app.example.com/home' },
    { url, method: 'post', navigationType: 'formSubmitted', targetFrame: 'sub', sourceURL: 'https://app.example.com/' },
    { url, method: null, navigationType: null, targetFrame: null, sourceURL: null },
    { url, method: undefined, extra: undefined, callback() {}, [Symbol('s')]: 1, tag: Symbol('t') },
    { url, extra: null },
    { url, extra: 'x' },
    { url, method: 5 },
    { url, navigationType: 'bogus' },
    { url, targetFrame: 'top' },
    { url, navigationType: 'bogus', sourceURL: 7 },
    { url: null },
    {},
    { method: 'GET' },
    { url: 42 },
    { url: { toString: () => url } },
    { url: [url] },
    { url: 'https://a.example/\ud800' },
    { url: 'https://a.example/\u0000\u001f"\\' },
    { url: 'https://ΑΒΓ.example/about' },
    { url: 'https://a.example/😀' },
    { url: 'not a url' },
    { url: '' },
    { url, sourceURL: 'not a url' },
    { url, method: 'G ET' },
    { url: `https://a.example/${'a'.repeat(9_900)}` },
    { url: `https://a.example/${'a'.repeat(10_100)}` },
    { url: `https://a.example/${'a'.repeat(40_000)}` },
    { url: `https://a.example/${'a'.repeat(70_000)}` },
    { url: `https://a.example/${'\u0001'.repeat(11_000)}` },
    { url, big: 10n },
    JSON.parse(`{"url":"${url}","__proto__":"x"}`),
    Object.assign(Object.create(null), { url }),
  ];
  for (const request of requests) assertSameBothWays(policy, request, JSON.stringify(request, (_, value) => (typeof value === 'bigint' ? `${value}n` : value)));
  for (const request of [null, undefined, url, 5, [url], new String(url), { url, toJSON: () => ({ url: 'https://x.example/' }) }]) {
    assert.deepEqual(outcome(policy, request), outcome(policy, request));
  }
  // A throwing getter is the JSON path's error, and a getter runs once, as in JSON.stringify.
  const throwing = { url, get method() { throw new Error('no method'); } };
  assert.deepEqual(outcome(policy, throwing), { error: { code: 'invalid-request', field: undefined, message: 'the request cannot be written as JSON: no method' } });
  let reads = 0;
  const counted = { get url() { reads += 1; return url; }, method: 5 };
  outcome(policy, counted);
  assert.equal(reads, 1);
  policy.release();
});

test('handler and action names stay right across policies and repeated decisions', () => {
  const first = NavigationPolicy.fromConfig(JSON.stringify({ defaultDecision: 'allow', handlers: [
    { name: 'one', type: 'cancel', action: 'act-one', match: { hosts: ['one.example'] } },
    { name: 'two', type: 'cancel', action: 'act-two', match: { hosts: ['two.example'] } },
  ] }));
  const second = NavigationPolicy.fromConfig(JSON.stringify({ defaultDecision: 'cancel', handlers: [
    { name: 'two', type: 'cancel', action: 'other', match: { hosts: ['two.example'] } },
  ] }));
  for (let round = 0; round < 3; round += 1) {
    assert.deepEqual(first.decide({ url: 'https://two.example/' }), { decision: 'cancel', handler: 'two', action: 'act-two', location: null, url: 'https://two.example/' });
    assert.deepEqual(second.decide({ url: 'https://two.example/' }), { decision: 'cancel', handler: 'two', action: 'other', location: null, url: 'https://two.example/' });
    assert.deepEqual(first.decide({ url: 'https://ONE.example' }), { decision: 'cancel', handler: 'one', action: 'act-one', location: null, url: 'https://one.example/' });
    assert.deepEqual(second.decide({ url: 'https://one.example' }).handler, null);
  }
});

test('a getter that decides another request does not change the request it is read from', () => {
  const policy = NavigationPolicy.fromConfig(JSON.stringify({ defaultDecision: 'allow', handlers: [
    { name: 'frames', type: 'cancel', action: 'block-frame', match: { targetFrames: ['sub'] } },
  ] }));
  const inner = { url: 'https://inner.example/', targetFrame: 'sub' };
  const expectedInner = { decision: 'cancel', handler: 'frames', action: 'block-frame', location: null, url: 'https://inner.example/' };
  const expectedOuter = { decision: 'allow', handler: null, action: null, location: null, url: 'https://outer.example/x' };
  let innerDecision = null;
  // Members read before and after the getter: both must stay the outer request's.
  const outer = { url: 'https://outer.example/x', get method() { innerDecision = policy.decide(inner); return 'GET'; }, navigationType: 'other' };
  assert.deepEqual(policy.decide(outer), expectedOuter);
  assert.deepEqual(innerDecision, expectedInner);
  // The same through JSON (another prototype), and nested twice.
  assert.deepEqual(policy.decide(asJSONPath(outer)), expectedOuter);
  const twice = { get url() { policy.decide(outer); return 'https://outer.example/x'; } };
  assert.deepEqual(policy.decide(twice), expectedOuter);
  // And the shared members are clean for the next plain call.
  assert.deepEqual(policy.decide({ url: 'https://outer.example/x' }), expectedOuter);
  policy.release();
});

test('a request decided from inside another request\'s JSON is itself decided, never the outer one', () => {
  // Outside attack round 11, F2: the outer request's snapshot was kept aside while JSON.stringify
  // ran its toJSON, and an inner request that is not a plain object was decided as the outer.
  const policy = NavigationPolicy.fromConfig(JSON.stringify({ defaultDecision: 'allow', handlers: [
    { name: 'logout', type: 'logout', match: { paths: ['/logout'] } },
  ] }));
  const home = { decision: 'allow', handler: null, action: null, location: null, url: 'https://app.example/home' };
  const logout = { decision: 'cancel', handler: 'logout', action: 'logout', location: null, url: 'https://app.example/logout' };
  class Request { constructor(url) { this.url = url; } }
  const inners = [
    new Request('https://app.example/logout'),
    { url: 'https://app.example/logout', toJSON() { return { url: this.url }; } },
    'not a request',
    undefined,
    ['https://app.example/logout'],
  ];
  assert.deepEqual(outcome(policy, inners[0]), { decision: logout });
  for (const inner of inners) {
    const alone = outcome(policy, inner);
    let innerOutcome = null;
    const outer = { url: 'https://app.example/home', extra: { toJSON() { innerOutcome = outcome(policy, inner); return undefined; } } };
    // `extra` makes the outer request go as JSON; its toJSON returns undefined, so
    // JSON.stringify leaves it out and the reader sees only the URL.
    assert.deepEqual(outcome(policy, outer), { decision: home });
    assert.deepEqual(innerOutcome, alone, `${JSON.stringify(inner)}`);
  }
  policy.release();
});

test('a Proxy whose has trap hides its toJSON is decided as JSON.stringify writes it (round 11, F9)', () => {
  const policy = NavigationPolicy.fromConfig(readFileSync(join(root, 'config/navpolicy.json'), 'utf8'));
  const toJSON = () => ({ url: 'https://app.example.com/logout' });
  const hiding = new Proxy({ url: 'https://app.example.com/home' }, {
    has: (target, key) => key !== 'toJSON' && key in target,
    get: (target, key) => (key === 'toJSON' ? toJSON : target[key]),
  });
  assert.equal(JSON.stringify(hiding), '{"url":"https://app.example.com/logout"}');
  assert.deepEqual(outcome(policy, hiding), outcome(policy, { url: 'https://app.example.com/logout' }));
  assert.equal(outcome(policy, hiding).decision?.handler, 'logout');
  policy.release();
});

test('a request that cannot even be read (a throwing or revoked Proxy) is an invalid-request', () => {
  const policy = NavigationPolicy.fromConfig(JSON.stringify({ defaultDecision: 'allow', handlers: [] }));
  const { proxy, revoke } = Proxy.revocable({ url: 'https://app.example/' }, {});
  revoke();
  const throwing = new Proxy({ url: 'https://app.example/' }, { ownKeys() { throw new Error('no keys'); } });
  const noPrototype = new Proxy({}, { getPrototypeOf() { throw null; } });
  for (const request of [proxy, throwing, noPrototype]) {
    assert.throws(() => policy.decide(request), (error) => error instanceof NavigationPolicyError && error.code === 'invalid-request');
  }
  policy.release();
});

test('the decision\'s url is the href byte for byte, even when the request\'s url is only canonically equivalent to it', () => {
  // Outside attack round 11, F1: U+037E GREEK QUESTION MARK is canonically equivalent to `;`, and
  // Swift's == on String said the request's text was the href, so it came back unchanged.
  const policy = NavigationPolicy.fromConfig(JSON.stringify({ defaultDecision: 'allow', handlers: [] }));
  for (const [url, href] of [['https://a\u037Eb.example/x', 'https://a;b.example/x'], ['https://app.example/p\u1FEFq', 'https://app.example/p%E1%BF%AFq']]) {
    assert.equal(policy.decide({ url }).url, href, url);
    assertSameBothWays(policy, { url }, url);
  }
  policy.release();
});
