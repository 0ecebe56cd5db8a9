// navpolicyd's policy engine as WebAssembly (issue 43): the same Swift that decides in the daemon
// and in apps, compiled with Embedded Swift (scripts/build-wasm.sh). This file loads the module
// and wraps its exports (Sources/NavigationPolicyWasm/Exports.swift); it parses, checks and
// decides nothing itself, apart from the Ed25519 signature check, done with WebCrypto because the
// module has no crypto of its own. `navpolicy.mjs` is this file plus `await initialize()`.
//
// Fail closed: every error this module throws is a NavigationPolicyError, and a caller treats any
// of them as "cancel the navigation" (docs/integrations/web.md).

/** Why a policy could not be loaded or a request decided; `code` says which kind of failure. */
export class NavigationPolicyError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'NavigationPolicyError';
    this.code = code;
    if (details.field !== undefined) this.field = details.field;
    if (details.errors !== undefined) this.errors = details.errors;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * How many bytes `encoder` writes for `text` (a lone surrogate as U+FFFD's three), counted
 * without writing them: for a text whose length alone proves it over one of the module's
 * limits, which is then passed as that count alone and refused, in the module's words, before
 * linear memory, which never shrinks, grows by it (outside attack round 12, F3, F4).
 */
function utf8Length(text) {
  let bytes = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      bytes += 1;
    } else if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      // A pair: four bytes for its two units.
      bytes += 2;
      index += 1;
    } else {
      bytes += 2;
    }
  }
  // The exports take an Int32; anything past it is just as over the limit.
  return Math.min(bytes, 0x7fffffff);
}

/** The compiled module, instantiated once; a new instance after a trap. */
let compiledModule = null;
let current = null;

/**
 * Loads the WebAssembly module: from `source` (a URL, a Response, bytes or a WebAssembly.Module,
 * for service workers and edge runtimes that hand the module over themselves), else from
 * `navpolicy.wasm` beside this file. Resolves once policies can be made.
 */
export async function initialize(source) {
  if (source === undefined && compiledModule !== null) return;
  compiledModule = await compile(source ?? new URL('./navpolicy.wasm', import.meta.url));
  current = new Engine(compiledModule);
}

async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return WebAssembly.compile(source);
  if (typeof Response !== 'undefined' && source instanceof Response) {
    return WebAssembly.compile(await source.arrayBuffer());
  }
  const url = new URL(source);
  if (url.protocol === 'file:') {
    // node, Electron's main process: fetch() reads no file: URLs there.
    const { readFile } = await import('node:fs/promises');
    return WebAssembly.compile(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new NavigationPolicyError('load-failed', `${url}: HTTP ${response.status}`);
  // Not compileStreaming: it needs the server to say application/wasm, which not every one does.
  return WebAssembly.compile(await response.arrayBuffer());
}

function engine() {
  if (compiledModule === null) {
    throw new NavigationPolicyError('not-initialized', 'await initialize() (or import navpolicy.mjs) before making a policy');
  }
  if (current === null || current.trapped) current = new Engine(compiledModule);
  return current;
}

/** WASI's errno values the host functions answer with. */
const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;
const ERRNO_NOSYS = 52;

/** One instance of the module: its exports, memory and the scratch buffer requests go through. */
class Engine {
  constructor(module) {
    this.trapped = false;
    this.stderr = '';
    const wasi = {
      // Swift seeds its hash tables with it.
      random_get: (pointer, length) => {
        const bytes = new Uint8Array(this.memory.buffer, pointer, length);
        // getRandomValues fills at most 65,536 bytes per call.
        for (let offset = 0; offset < length; offset += 65536) {
          crypto.getRandomValues(bytes.subarray(offset, Math.min(length, offset + 65536)));
        }
        return ERRNO_SUCCESS;
      },
      // Only a trap's message is ever written (fatalError to stderr): kept for the error thrown.
      fd_write: (fd, iovs, iovsLength, writtenPointer) => {
        const view = new DataView(this.memory.buffer);
        let written = 0;
        for (let index = 0; index < iovsLength; index += 1) {
          const base = view.getUint32(iovs + index * 8, true);
          const length = view.getUint32(iovs + index * 8 + 4, true);
          if (fd === 1 || fd === 2) this.stderr += decoder.decode(new Uint8Array(this.memory.buffer, base, length));
          written += length;
        }
        view.setUint32(writtenPointer, written, true);
        this.stderr = this.stderr.slice(-4096);
        return fd === 1 || fd === 2 ? ERRNO_SUCCESS : ERRNO_BADF;
      },
      fd_close: () => ERRNO_BADF,
      fd_seek: () => ERRNO_BADF,
      proc_exit: (code) => {
        throw new WebAssembly.RuntimeError(`proc_exit(${code})`);
      },
    };
    // Whatever else the module imports (nothing today) answers "not supported".
    const imports = {};
    for (const entry of WebAssembly.Module.imports(module)) {
      imports[entry.module] ??= {};
      if (entry.kind === 'function') {
        imports[entry.module][entry.name] = (entry.module === 'wasi_snapshot_preview1' && wasi[entry.name]) || (() => ERRNO_NOSYS);
      }
    }
    this.instance = new WebAssembly.Instance(module, imports);
    this.exports = this.instance.exports;
    this.memory = this.exports.memory;
    if (typeof this.exports._initialize === 'function') this.exports._initialize();
    this.scratch = 0;
    this.scratchSize = 0;
    this.scratchView = null;
    this.words = null;
  }

  /** Runs `body` with the exports; a trap marks the instance unusable and throws `engine-trapped`. */
  call(body) {
    if (this.trapped) {
      throw new NavigationPolicyError('engine-trapped', 'the engine stopped on an earlier error; load the policy again');
    }
    try {
      return body(this.exports);
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError || error instanceof RangeError) {
        this.trapped = true;
        const detail = this.stderr.trim();
        throw new NavigationPolicyError('engine-trapped', `the engine stopped: ${error.message}${detail ? `: ${detail}` : ''}`);
      }
      throw error;
    }
  }

  /** A fresh allocation holding `bytes`; the caller frees it or hands it to the module. */
  copyIn(bytes) {
    const pointer = this.exports.navpolicy_alloc(bytes.length);
    if (pointer === 0) throw new NavigationPolicyError('out-of-memory', `no room for ${bytes.length} bytes`);
    new Uint8Array(this.memory.buffer, pointer, bytes.length).set(bytes);
    return pointer;
  }

  /**
   * Opens a bundle from a copy of its first bytes alone (navpolicy_bundle_open): the checks
   * before the signature read no more, so a bundle they refuse never reaches linear memory,
   * which never shrinks, whole. Returns { handle, keyIds }: the opened bundle and the key ids
   * the signature must verify with (none: no key is trusted).
   */
  openBundle(bytes, trustedKeyIds, hasSignature, acceptsUnversionedBundles) {
    const headLength = Math.min(bytes.length, this.exports.navpolicy_bundle_head_bytes());
    const head = this.copyIn(bytes.subarray(0, headLength));
    try {
      // The module refuses an id that is no key id (BundleKeyIDFormat: at most 64 characters of
      // A-Z a-z 0-9 . _ -); its first 65 units are refused alike for a longer one, which so
      // never reaches linear memory whole (a 120M-character id grew it to 631 MiB: round 12, F3).
      const ids = JSON.stringify(trustedKeyIds.map((id) => (id.length > maximumKeyIdUnits ? id.slice(0, maximumKeyIdUnits + 1) : id)));
      const [keysPointer, keysLength] = this.scratchText(ids);
      const handle = this.exports.navpolicy_bundle_open(head, headLength, bytes.length, keysPointer, keysLength, hasSignature ? 1 : 0, acceptsUnversionedBundles ? 1 : 0);
      return { handle, keyIds: this.result(handle).keyIds };
    } finally {
      this.exports.navpolicy_free(head);
    }
  }

  /** The reused scratch buffer, at least `needed` bytes, as a view of the current memory. */
  scratchBytes(needed) {
    if (needed > this.scratchSize) {
      if (this.scratch !== 0) this.exports.navpolicy_free(this.scratch);
      const size = Math.max(needed, 4096);
      this.scratch = this.exports.navpolicy_alloc(size);
      this.scratchSize = this.scratch === 0 ? 0 : size;
      this.scratchView = null;
      if (this.scratch === 0) throw new NavigationPolicyError('out-of-memory', `no room for ${needed} bytes`);
    }
    // A grown memory detaches the views of the old one: their length drops to 0 (cheaper to
    // test than comparing with memory.buffer on every call).
    if (this.scratchView === null || this.scratchView.length === 0) {
      this.scratchView = new Uint8Array(this.memory.buffer, this.scratch, this.scratchSize);
    }
    return this.scratchView;
  }

  /** `text` as UTF-8 in the reused scratch buffer: [pointer, length]. */
  scratchText(text) {
    // encodeInto writes at most three bytes per UTF-16 code unit.
    const { written } = encoder.encodeInto(text, this.scratchBytes(text.length * 3));
    return [this.scratch, written];
  }

  /** The decision words (DecisionWords.swift) as an Int32Array of the current memory. */
  decisionWords() {
    if (this.words === null || this.words.length === 0) {
      this.words = new Int32Array(this.memory.buffer, this.exports.navpolicy_decision_words(), 16);
    }
    return this.words;
  }

  /**
   * Decides `fields` (the request's five members, each a string or null) through
   * navpolicy_decide_fields: the decision object, built here from the words and `names` (the
   * policy's handler and action names, read once each).
   */
  decideFields(handle, fields, names) {
    let needed = 0;
    for (let index = 0; index < 5; index += 1) if (fields[index] !== null) needed += fields[index].length * 3;
    const scratch = this.scratchBytes(needed);
    let words = this.decisionWords();
    let offset = 0;
    for (let index = 0; index < 5; index += 1) {
      const text = fields[index];
      if (text === null) {
        words[index] = -1;
      } else {
        const { written } = encoder.encodeInto(text, offset === 0 ? scratch : scratch.subarray(offset));
        words[index] = written;
        offset += written;
      }
    }
    const status = this.exports.navpolicy_decide_fields(handle, this.scratch);
    if (status !== 0) return this.result(status);
    words = this.decisionWords();
    const locationLength = words[11];
    const urlLength = words[12];
    let location = null;
    let url = fields[0];
    if (locationLength >= 0 || urlLength >= 0) {
      const start = words[13] >>> 0;
      if (locationLength >= 0) location = decoder.decode(new Uint8Array(this.memory.buffer, start, locationLength));
      if (urlLength >= 0) url = decoder.decode(new Uint8Array(this.memory.buffer, start + Math.max(locationLength, 0), urlLength));
    }
    // Read after the strings: reading a name replaces the call result.
    const handler = words[9] < 0 ? null : this.name(handle, words[9], names);
    const action = words[10] < 0 ? null : this.name(handle, words[10], names);
    return { decision: words[8] === 1 ? 'cancel' : 'allow', handler, action, location, url };
  }

  /** The policy's name at `index`, read from the module the first time a decision names it. */
  name(handle, index, names) {
    while (names.length <= index) {
      const status = this.exports.navpolicy_policy_name(handle, names.length);
      if (status < 0) this.result(status);
      const pointer = this.exports.navpolicy_result_pointer();
      names.push(decoder.decode(new Uint8Array(this.memory.buffer, pointer, this.exports.navpolicy_result_length())));
    }
    return names[index];
  }

  /** The last call's result: its JSON parsed; a status below 0 throws it as a NavigationPolicyError. */
  result(status) {
    const pointer = this.exports.navpolicy_result_pointer();
    const length = this.exports.navpolicy_result_length();
    const value = JSON.parse(decoder.decode(new Uint8Array(this.memory.buffer, pointer, length)));
    if (status < 0) throw new NavigationPolicyError(value.code, value.message, value);
    return value;
  }
}

/** A key id's most characters (BundleKeyIDFormat.problem: 1 to 64 ASCII characters). */
const maximumKeyIdUnits = 64;

/** Only fromConfig and fromBundle make policies. */
const constructing = Symbol('NavigationPolicy');

/** Releases a policy's handle in its instance when the policy object is garbage-collected. */
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry(({ owner, handle }) => {
        if (!owner.trapped) owner.exports.navpolicy_policy_release(handle);
      })
    : null;

/**
 * Padded standard base64 (RFC 4648 §4), as navpolicyd and the Swift client read signatures and
 * keys: whitespace only around it, none inside, padding required. atob alone also took
 * unpadded text and whitespace inside (outside attack round 11, F8).
 */
const paddedBase64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The ASCII whitespace a signature file's line may have around its base64. Not String.trim,
 * which also takes U+FEFF, NBSP and other Unicode spaces that navpolicyd refuses (outside attack
 * round 12, F5): anything but these around a signature is refused here (fail closed).
 */
const surroundingWhitespace = /^[ \t\n\r]+|[ \t\n\r]+$/g;

function base64Bytes(text) {
  if (typeof text !== 'string') return null;
  const trimmed = text.replace(surroundingWhitespace, '');
  if (!paddedBase64.test(trimmed)) return null;
  try {
    const binary = atob(trimmed);
    return Uint8Array.from(binary, (character) => character.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * `error` as an API error: a NavigationPolicyError as it is; anything else (a getter or a Proxy
 * trap that threw, a revoked Proxy, a detached buffer) the caller's `invalid-argument`, so every
 * failure is a NavigationPolicyError (outside attack round 13, N4).
 */
function argumentError(error) {
  if (error instanceof NavigationPolicyError) return error;
  let detail;
  try {
    detail = String(error?.message ?? error);
  } catch {
    detail = 'an unreadable error';
  }
  return new NavigationPolicyError('invalid-argument', `the arguments cannot be read: ${detail}`);
}

function asBytes(value, what) {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  // A new view even over a Uint8Array: made over a detached buffer, it throws here, where the
  // caller's error is told apart, rather than later inside the module's calls.
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new NavigationPolicyError('invalid-argument', `${what} must be a Uint8Array or an ArrayBuffer`);
}

/**
 * The trusted keys' raw 32 bytes, by key id; a bad key is the caller's error. `undefined` (the
 * option left out) trusts nothing and verifies nothing (tests, vectors). Anything else must be a
 * plain object (prototype `Object.prototype` or null) of at least one own enumerable data
 * property: a `Map`, a class instance, inherited, non-enumerable, getter or Symbol keys, or `{}`
 * were read as no key at all, so a bundle signed by nobody trusted loaded unverified (outside
 * attack round 13, N1). Each property descriptor is read once: no getter or trap runs twice.
 */
function trustedKeyBytes(trustedKeys) {
  const keys = new Map();
  if (trustedKeys === undefined) return keys;
  const shape = 'trustedKeys must be a plain object { keyId: base64PublicKey } holding at least one key (leave it out to load without verifying: tests only)';
  if (trustedKeys === null || typeof trustedKeys !== 'object') throw new NavigationPolicyError('invalid-argument', shape);
  const prototype = Object.getPrototypeOf(trustedKeys);
  if ((prototype !== Object.prototype && prototype !== null) || Array.isArray(trustedKeys)) {
    throw new NavigationPolicyError('invalid-argument', shape);
  }
  for (const keyId of Reflect.ownKeys(trustedKeys)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(trustedKeys, keyId);
    if (typeof keyId !== 'string' || descriptor === undefined || !descriptor.enumerable || !('value' in descriptor)) {
      throw new NavigationPolicyError('invalid-argument', shape);
    }
    const raw = base64Bytes(descriptor.value);
    if (raw === null || raw.length !== 32) {
      throw new NavigationPolicyError('invalid-argument', `trustedKeys[${JSON.stringify(keyId)}] is not a base64 32-byte Ed25519 public key`);
    }
    keys.set(keyId, raw);
  }
  if (keys.size === 0) throw new NavigationPolicyError('invalid-argument', shape);
  return keys;
}

/**
 * The Unix seconds fromBundle's `now` (undefined or null: the current time, as before) stands for. Only a Date or a
 * finite number of milliseconds is a time: "", "0", [0] or false were read as 1970, which let an
 * expired bundle load, and a Symbol or a BigInt threw a TypeError (outside attack round 12, F7).
 */
function unixSeconds(now) {
  // A Date's time through Date.prototype.getTime itself: an object's own `getTime` is not asked,
  // and an object that only inherits from Date.prototype throws (round 13, N4), below.
  const milliseconds = now === undefined || now === null ? Date.now() : now instanceof Date ? Date.prototype.getTime.call(now) : typeof now === 'number' ? now : NaN;
  if (!Number.isFinite(milliseconds)) {
    throw new NavigationPolicyError('invalid-argument', 'now must be a valid Date or a finite number of milliseconds since 1970');
  }
  return Math.floor(milliseconds / 1000);
}

/** The raw public key `raw` imported for WebCrypto's Ed25519. */
async function importKey(raw) {
  try {
    return await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
  } catch (error) {
    throw new NavigationPolicyError('unsupported', `this runtime's WebCrypto cannot import an Ed25519 key: ${error.message}`);
  }
}

/**
 * How decide sends `request`: its five members as strings (url, method, navigationType,
 * targetFrame, sourceURL; null for an absent one), an Array, when the JSON text JSON.stringify
 * would make of it holds exactly those strings and fits a request body: then the module reads
 * them as it reads a body's members, with no JSON between (navpolicy_decide_fields). Otherwise
 * what to write as JSON, whose reader answers every other shape with its own error: null for
 * `request` itself, or, for a plain object whose members were read already, a snapshot of them
 * (a getter runs once, as it would in JSON.stringify alone). Returned, never kept aside: a
 * getter or toJSON may call decide again (outside attack round 11, F2).
 */
function requestFields(request) {
  if (request === null || typeof request !== 'object') return null;
  const prototype = Object.getPrototypeOf(request);
  // Arrays, boxed strings, class instances and objects with toJSON: JSON.stringify's own rules.
  if (prototype !== Object.prototype && prototype !== null) return null;
  // toJSON found as JSON.stringify finds it, by a get: a Proxy's `has` trap could deny one its
  // `get` trap then hands JSON.stringify, and the members were decided instead of what toJSON
  // returns (outside attack round 11, F9).
  if (typeof request.toJSON === 'function') return null;
  return readMembers(request);
}

/**
 * The members requestFields reads, reused across calls. A member's getter may itself call
 * decide (the API runs on one thread, but a getter is the caller's code): that inner read gets
 * an array of its own (`readingMembers`), or it would write its members over the outer request's
 * and the outer decision would be about the inner request's URL.
 */
const memberFields = [null, null, null, null, null];
let readingMembers = false;

/** At most this many UTF-16 code units in all: JSON.stringify writes one as 6 bytes at most, so the body stays under the module's 65,536-byte limit. */
const maximumFieldUnits = 10_000;

/** Whether JSON.stringify would write `text` as it is (no lone surrogate, which it escapes and encodeInto would replace). */
const wellFormed =
  typeof String.prototype.isWellFormed === 'function' ? (text) => text.isWellFormed() : (text) => !/[\uD800-\uDFFF]/.test(text);

function fieldIndex(key) {
  switch (key) {
    case 'url': return 0;
    case 'method': return 1;
    case 'navigationType': return 2;
    case 'targetFrame': return 3;
    case 'sourceURL': return 4;
    default: return -1;
  }
}

function readMembers(request) {
  if (readingMembers) return readMembersInto([null, null, null, null, null], request);
  readingMembers = true;
  try {
    return readMembersInto(memberFields.fill(null), request);
  } finally {
    readingMembers = false;
  }
}

function readMembersInto(fields, request) {
  const keys = Object.keys(request);
  const values = new Array(keys.length);
  let plain = true;
  let units = 0;
  for (let index = 0; index < keys.length; index += 1) {
    let value;
    try {
      value = request[keys[index]];
    } catch (error) {
      throw new NavigationPolicyError('invalid-request', `the request cannot be written as JSON: ${error?.message ?? error}`);
    }
    values[index] = value;
    const type = typeof value;
    // JSON.stringify leaves these members out, so the reader never sees them.
    if (value === undefined || type === 'function' || type === 'symbol') continue;
    const field = fieldIndex(keys[index]);
    if (field < 0) {
      plain = false;
    } else if (type === 'string' && wellFormed(value)) {
      fields[field] = value;
      units += value.length;
    } else if (value !== null) {
      // null is an absent member to the reader, as here.
      plain = false;
    }
  }
  if (plain && units <= maximumFieldUnits) return fields;
  const snapshot = Object.create(null);
  for (let index = 0; index < keys.length; index += 1) snapshot[keys[index]] = values[index];
  return snapshot;
}

/** A compiled navigation policy: decides navigations as navpolicyd's /v1/decide does. */
export class NavigationPolicy {
  #engine;
  #handle;
  /** The handler and action names decisions named by index (Engine.decideFields). */
  #names = [];

  constructor(token, owner, handle, summary) {
    if (token !== constructing) throw new TypeError('use NavigationPolicy.fromConfig or NavigationPolicy.fromBundle');
    this.#engine = owner;
    this.#handle = handle;
    /** `"config"`, `"json"` or `"compiled"`: what the policy was loaded from. */
    this.layout = summary.layout ?? 'config';
    /** The bundle's signed `policyVersion` (null for a config or a version-1 bundle): refuse a bundle whose version is not above the one you hold. */
    this.policyVersion = summary.policyVersion ?? null;
    this.revision = summary.revision ?? null;
    this.issuedAt = summary.issuedAt ?? null;
    this.expiresAt = summary.expiresAt ?? null;
    this.keyId = summary.keyId ?? null;
    finalizer?.register(this, { owner, handle }, this);
  }

  /**
   * Compiles a JSON config (the text of navpolicy.json), for development and tests; apps load
   * signed bundles. Throws a NavigationPolicyError (`invalid-config`, with `errors`).
   */
  static fromConfig(jsonText) {
    if (typeof jsonText !== 'string') throw new NavigationPolicyError('invalid-argument', 'the config must be a string of JSON');
    const owner = engine();
    return owner.call((exports) => {
      // A config over the module's limit (navpolicyd validate's) goes as its length alone, refused
      // before it is encoded or copied in: its length proves it over when its UTF-16 units do
      // (each is at least one byte), its encoding otherwise (round 12, F4).
      const limit = exports.navpolicy_config_bytes_limit();
      const bytes = jsonText.length > limit ? null : encoder.encode(jsonText);
      if (bytes === null || bytes.length > limit) {
        owner.result(exports.navpolicy_policy_from_config(0, bytes === null ? utf8Length(jsonText) : bytes.length));
        throw new NavigationPolicyError('invalid-config', 'the config is over the limit');
      }
      const pointer = owner.copyIn(bytes);
      try {
        const handle = exports.navpolicy_policy_from_config(pointer, bytes.length);
        const summary = owner.result(handle);
        return new NavigationPolicy(constructing, owner, handle, { ...summary, layout: 'config' });
      } finally {
        exports.navpolicy_free(pointer);
      }
    });
  }

  /**
   * Loads a policy bundle (`GET /v1/policy/bundle`, `navpolicyd bundle`, JSON or compiled) as the
   * app client does: with `trustedKeys`, the signature (base64 text or bytes) must verify with
   * the key the bundle's signed `keyId` names (Ed25519 through WebCrypto); an expired bundle is
   * refused. Everything before the signature is checked from the bundle's first 64 KiB, and the
   * bundle is copied into the module's memory (which never shrinks) only once it verified.
   * Without `trustedKeys`, nothing is verified (tests, vectors). Compare `policyVersion` with
   * the one you hold to refuse a rollback.
   */
  static async fromBundle(bytes, options = {}) {
    let view, keys, seconds, signature, acceptsUnversionedBundles;
    try {
      if (options === null || typeof options !== 'object') {
        throw new NavigationPolicyError('invalid-argument', 'the options must be an object { trustedKeys, signature, now }');
      }
      let trustedKeys, now;
      // Each option read once, here: a getter runs once, and what it threw is the caller's error.
      ({ trustedKeys, signature = null, acceptsUnversionedBundles = false, now } = options);
      view = asBytes(bytes, 'the bundle');
      keys = trustedKeyBytes(trustedKeys);
      seconds = unixSeconds(now);
    } catch (error) {
      throw argumentError(error);
    }
    const hasSignature = signature !== null && signature !== undefined;
    const owner = engine();
    // Size, layout, key id and signature's presence are checked from the bundle's head alone,
    // before it is copied anywhere whole (docs/bundles.md, "What a reader reads before the
    // signature"): a forged 256 MiB bundle grew linear memory, which never shrinks, by 256 MiB
    // before it was refused (attack round 10, F5).
    const opened = owner.call(() => owner.openBundle(view, [...keys.keys()], hasSignature, acceptsUnversionedBundles));
    let snapshot;
    let verified = false;
    try {
      // What the signature is checked over and the module reads: a copy taken before the first
      // await, so that the caller may reuse its buffer at once.
      snapshot = view.slice();
      if (opened.keyIds.length > 0) {
        const signatureBytes = typeof signature === 'string' ? base64Bytes(signature) : asBytes(signature, 'the signature');
        for (const keyId of opened.keyIds) {
          if (signatureBytes === null || verified) break;
          const key = await importKey(keys.get(keyId));
          // A signature WebCrypto cannot even read is one that does not verify.
          verified = await crypto.subtle.verify({ name: 'Ed25519' }, key, signatureBytes, snapshot).catch(() => false);
        }
      }
    } catch (error) {
      owner.call((exports) => exports.navpolicy_bundle_discard(opened.handle));
      // A bundle or signature buffer detached meanwhile: the caller's error.
      throw argumentError(error);
    }
    return owner.call((exports) => {
      // Copied in whole only once the signature verified (or when no key is trusted): the
      // module refuses anything else as bad-signature without its bytes.
      const whole = opened.keyIds.length === 0 || verified;
      let pointer = 0;
      try {
        if (whole) pointer = owner.copyIn(snapshot);
      } catch (error) {
        exports.navpolicy_bundle_discard(opened.handle);
        throw error;
      }
      // The module owns `pointer` from here, failure or not.
      const handle = exports.navpolicy_bundle_load(opened.handle, pointer, whole ? snapshot.length : 0, seconds, verified ? 1 : 0);
      return new NavigationPolicy(constructing, owner, handle, owner.result(handle));
    });
  }

  /**
   * Decides a navigation: `{ url, method, navigationType, targetFrame }` (and `sourceURL`), as
   * `POST /v1/decide` takes it. Returns `{ decision, handler, action, location, url }` (and
   * `shadow` when a shadow handler matched), the object /v1/decide and `navpolicyd check`
   * answer. Throws a NavigationPolicyError (`invalid-request` with `field`) for a request it
   * cannot parse: cancel the navigation then.
   */
  decide(request) {
    let read;
    try {
      read = requestFields(request);
    } catch (error) {
      // A Proxy's trap that throws, a revoked Proxy: a request that cannot be read.
      if (error instanceof NavigationPolicyError) throw error;
      throw new NavigationPolicyError('invalid-request', `the request cannot be read: ${error?.message ?? error}`);
    }
    const fields = Array.isArray(read) ? read : null;
    let text;
    if (fields === null) {
      try {
        text = JSON.stringify(read ?? request);
      } catch (error) {
        throw new NavigationPolicyError('invalid-request', `the request cannot be written as JSON: ${error?.message ?? error}`);
      }
      if (typeof text !== 'string') throw new NavigationPolicyError('invalid-request', 'the request must be an object');
    }
    const owner = this.#engine;
    if (this.#handle === 0) throw new NavigationPolicyError('released', 'the policy was released');
    if (fields !== null) return owner.call(() => owner.decideFields(this.#handle, fields, this.#names));
    return owner.call((exports) => {
      // A text longer than the module's limit in UTF-16 units is longer in bytes: it goes as its
      // length alone, refused (payload-too-large) before the scratch buffer grows linear memory,
      // which never shrinks, by three bytes a unit (outside attack round 12, F3).
      if (text.length > exports.navpolicy_request_bytes_limit()) {
        return owner.result(exports.navpolicy_decide(this.#handle, 0, utf8Length(text)));
      }
      const [pointer, length] = owner.scratchText(text);
      return owner.result(exports.navpolicy_decide(this.#handle, pointer, length));
    });
  }

  /** Frees the policy's memory now rather than when it is garbage-collected. */
  release() {
    if (this.#handle === 0) return;
    finalizer?.unregister(this);
    if (!this.#engine.trapped) this.#engine.exports.navpolicy_policy_release(this.#handle);
    this.#handle = 0;
  }
}
