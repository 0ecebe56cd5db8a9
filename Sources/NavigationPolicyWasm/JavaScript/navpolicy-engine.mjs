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

  /** `text` as UTF-8 in the reused scratch buffer: [pointer, length]. */
  scratchText(text) {
    // encodeInto writes at most three bytes per UTF-16 code unit.
    const needed = text.length * 3;
    if (needed > this.scratchSize) {
      if (this.scratch !== 0) this.exports.navpolicy_free(this.scratch);
      const size = Math.max(needed, 4096);
      this.scratch = this.exports.navpolicy_alloc(size);
      this.scratchSize = this.scratch === 0 ? 0 : size;
      if (this.scratch === 0) throw new NavigationPolicyError('out-of-memory', `no room for ${needed} bytes`);
    }
    const { written } = encoder.encodeInto(text, new Uint8Array(this.memory.buffer, this.scratch, this.scratchSize));
    return [this.scratch, written];
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

/** Only fromConfig and fromBundle make policies. */
const constructing = Symbol('NavigationPolicy');

/** Releases a policy's handle in its instance when the policy object is garbage-collected. */
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry(({ owner, handle }) => {
        if (!owner.trapped) owner.exports.navpolicy_policy_release(handle);
      })
    : null;

function base64Bytes(text) {
  if (typeof text !== 'string') return null;
  try {
    const binary = atob(text.trim());
    return Uint8Array.from(binary, (character) => character.charCodeAt(0));
  } catch {
    return null;
  }
}

function asBytes(value, what) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new NavigationPolicyError('invalid-argument', `${what} must be a Uint8Array or an ArrayBuffer`);
}

/** The trusted keys imported for WebCrypto's Ed25519, by key id; a bad key is the caller's error. */
async function importKeys(trustedKeys) {
  if (trustedKeys === null || typeof trustedKeys !== 'object') {
    throw new NavigationPolicyError('invalid-argument', 'trustedKeys must be an object { keyId: base64PublicKey }');
  }
  const keys = new Map();
  for (const [keyId, text] of Object.entries(trustedKeys)) {
    const raw = base64Bytes(text);
    if (raw === null || raw.length !== 32) {
      throw new NavigationPolicyError('invalid-argument', `trustedKeys[${JSON.stringify(keyId)}] is not a base64 32-byte Ed25519 public key`);
    }
    try {
      keys.set(keyId, await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']));
    } catch (error) {
      throw new NavigationPolicyError('unsupported', `this runtime's WebCrypto cannot import an Ed25519 key: ${error.message}`);
    }
  }
  return keys;
}

/** A compiled navigation policy: decides navigations as navpolicyd's /v1/decide does. */
export class NavigationPolicy {
  #engine;
  #handle;

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
      const bytes = encoder.encode(jsonText);
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
   * refused. Without `trustedKeys`, nothing is verified (tests, vectors). Compare `policyVersion`
   * with the one you hold to refuse a rollback.
   */
  static async fromBundle(bytes, { trustedKeys = {}, signature = null, acceptsUnversionedBundles = false, now } = {}) {
    const snapshot = asBytes(bytes, 'the bundle').slice();
    const keys = await importKeys(trustedKeys);
    const hasSignature = signature !== null && signature !== undefined;
    const owner = engine();
    const opened = owner.call((exports) => {
      const pointer = owner.copyIn(snapshot);
      const [keysPointer, keysLength] = owner.scratchText(JSON.stringify([...keys.keys()]));
      // The module owns `pointer` from here, failure or not.
      const handle = exports.navpolicy_bundle_open(pointer, snapshot.length, keysPointer, keysLength, hasSignature ? 1 : 0, acceptsUnversionedBundles ? 1 : 0);
      return { handle, keyIds: owner.result(handle).keyIds };
    });
    let verified = false;
    try {
      if (opened.keyIds.length > 0) {
        const signatureBytes = typeof signature === 'string' ? base64Bytes(signature) : asBytes(signature, 'the signature');
        for (const keyId of opened.keyIds) {
          if (signatureBytes === null || verified) break;
          // A signature WebCrypto cannot even read is one that does not verify.
          verified = await crypto.subtle.verify({ name: 'Ed25519' }, keys.get(keyId), signatureBytes, snapshot).catch(() => false);
        }
      }
    } catch (error) {
      owner.call((exports) => exports.navpolicy_bundle_discard(opened.handle));
      throw error;
    }
    const seconds = Math.floor((now instanceof Date ? now.getTime() : now ?? Date.now()) / 1000);
    return owner.call((exports) => {
      const handle = exports.navpolicy_bundle_load(opened.handle, seconds, verified ? 1 : 0);
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
    let text;
    try {
      text = JSON.stringify(request);
    } catch (error) {
      throw new NavigationPolicyError('invalid-request', `the request cannot be written as JSON: ${error.message}`);
    }
    if (typeof text !== 'string') throw new NavigationPolicyError('invalid-request', 'the request must be an object');
    const owner = this.#engine;
    if (this.#handle === 0) throw new NavigationPolicyError('released', 'the policy was released');
    return owner.call((exports) => {
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
