// What the node suites share: where the built module, the conformance vectors and the navpolicyd
// binary are, and how to make signed bundles with the real `navpolicyd bundle` (test-time
// fixtures, so they never go stale against the daemon's format).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** The built package (make wasm); NAVPOLICY_WASM_DIST points elsewhere (a mutated build). */
export const dist = resolve(process.env.NAVPOLICY_WASM_DIST ?? join(root, 'dist/wasm'));
/** The vector files; NAVPOLICY_CONFORMANCE_DIR points at a copy (to show a flipped vector fails). */
export const conformanceDirectory = resolve(process.env.NAVPOLICY_CONFORMANCE_DIR ?? join(root, 'config/conformance'));
/** The reference binary (make test builds it first). */
export const navpolicyd = resolve(process.env.NAVPOLICYD ?? join(root, '.build/debug/navpolicyd'));

/** The module, loaded from `dist` (its top-level await reads navpolicy.wasm beside it). */
export async function loadModule() {
  return import(join(dist, 'navpolicy.mjs'));
}

/** Runs navpolicyd; returns { status, stdout, stderr } without throwing on a non-zero exit. */
export function run(args) {
  try {
    const stdout = execFileSync(navpolicyd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, stdout, stderr: '' };
  } catch (error) {
    if (error.status === undefined || error.status === null) throw error;
    return { status: error.status, stdout: error.stdout, stderr: error.stderr };
  }
}

/** A scratch directory removed when the process exits. */
export function scratch() {
  const directory = mkdtempSync(join(tmpdir(), 'navpolicy-wasm-'));
  process.on('exit', () => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** An Ed25519 key pair: the PEM private key's path and the base64 raw public key apps trust. */
export function signingKey(directory, name) {
  const pem = join(directory, `${name}.pem`);
  execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', pem]);
  const publicKey = run(['bundle', '--public-key', '--sign', pem]).stdout.trim();
  return { pem, publicKey };
}

/**
 * `navpolicyd bundle` of `config` with `args` (e.g. --sign, --key-id, --compiled); returns the
 * bundle's path, bytes and base64 signature (null when unsigned).
 */
export function makeBundle(directory, name, config, args = []) {
  const path = join(directory, `${name}.bundle`);
  const result = run(['bundle', '--config', config, '--output', path, ...args]);
  if (result.status !== 0) throw new Error(`navpolicyd bundle ${args.join(' ')}: ${result.stderr}`);
  let signature = null;
  try {
    signature = readFileSync(`${path}.sig`, 'utf8').trim();
  } catch {}
  return { path, bytes: new Uint8Array(readFileSync(path)), signature };
}

/** Writes `bytes` (and a signature) to a file, for `navpolicyd bundle verify` to read. */
export function writeBundle(directory, name, bytes, signature) {
  const path = join(directory, name);
  writeFileSync(path, bytes);
  if (signature !== null && signature !== undefined) writeFileSync(`${path}.sig`, `${signature}\n`);
  return path;
}

/**
 * Test and bench only: keeps the WebAssembly instances made from now on by wrapping
 * WebAssembly.Instance (call it before the module is imported: its top-level await makes the
 * first one), and returns a function that gives the last one's linear memory in bytes. The API
 * shows nothing of linear memory, nor should it.
 */
export function linearMemoryProbe() {
  const instances = [];
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = function (module, imports) {
    const made = new Instance(module, imports);
    instances.push(made);
    return made;
  };
  return () => instances.at(-1).exports.memory.buffer.byteLength;
}

const forgedStamp = `"revision":"sha256:${'a'.repeat(64)}","policyVersion":5,"issuedAt":4070908800,"expiresAt":4102444800`;

/**
 * A compiled bundle of `total` bytes whose head names `keyId`, its image `total` minus the head
 * bytes of `fill`, signed by nobody (attack round 10, F5). A `fill` other than 0 writes every
 * page, as a download would (untouched zero pages count in no RSS).
 */
export function forgedCompiledBundle(keyId, total, fill = 0) {
  const head = (length) => `{"format":"navpolicy-bundle","version":3,${forgedStamp},"keyId":"${keyId}","compiledPolicy":{"length":${length}}}\n`;
  const bytes = new Uint8Array(total);
  if (fill !== 0) bytes.fill(fill);
  // The length is part of the head: its digits are the same for the two tries.
  bytes.set(new TextEncoder().encode(head(total - head(total).length)));
  return bytes;
}

/** A JSON bundle of `total` bytes whose head names `keyId` and whose chain is spaces, signed by nobody. */
export function forgedJSONBundle(keyId, total) {
  const encoder = new TextEncoder();
  const bytes = new Uint8Array(total).fill(0x20);
  bytes.set(encoder.encode(`{"format":"navpolicy-bundle","version":2,${forgedStamp},"keyId":"${keyId}","policy":{"handlers":[`));
  bytes.set(encoder.encode(']}}'), total - 3);
  return bytes;
}

/** The error `body` throws (or rejects with); fails when it throws none. */
export async function thrown(body) {
  try {
    await body();
  } catch (error) {
    return error;
  }
  assert.fail('nothing was thrown');
}
