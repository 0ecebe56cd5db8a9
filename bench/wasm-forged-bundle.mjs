// What a forged bundle costs fromBundle before it is refused (attack round 10, F5): a 256 MiB
// compiled bundle naming an untrusted key id, the same naming the trusted one with a forged
// signature, and a 31 MiB JSON bundle naming the trusted one, forged. For each: the growth of the
// module's linear memory (memory.buffer.byteLength, which never shrinks), the wall time of the
// refused call and the process's peak RSS; medians of ROUNDS, one node process per run, the
// builds alternated in the same run. The attacker's own repro read the bundle from a file and
// reported RSS; this one makes the bytes in memory (in the RSS of both builds alike).
//
//   node bench/wasm-forged-bundle.mjs [DIST] [BEFORE_DIST]    (ROUNDS=5; DIST default dist/wasm)
//
// A measurement, not a test (bundle-head.test.mjs is the test): exit 0 unless setup fails.
// Figures: docs/integrations/web.md, "Forged bundles cost their head".
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { forgedCompiledBundle, forgedJSONBundle, linearMemoryProbe } from '../Tests/NavigationPolicyWasmTests/support.mjs';

const MiB = 1 << 20;

const cases = {
  // Written through, as a download would be: untouched zero pages would not count in the RSS.
  'compiled 256 MiB, untrusted key id': () => forgedCompiledBundle('nobody', 256 * MiB, 0x55),
  'compiled 256 MiB, trusted key id, forged signature': () => forgedCompiledBundle('app', 256 * MiB, 0x55),
  'JSON 31 MiB, trusted key id, forged signature': () => forgedJSONBundle('app', 31 * MiB),
};

/** One run in this process: the module from `dist`, the bundle of case `name`. */
async function child(dist, name) {
  const memory = linearMemoryProbe();
  const { NavigationPolicy } = await import(resolve(dist, 'navpolicy.mjs'));
  const pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
  const publicKey = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey))));
  NavigationPolicy.fromConfig('{"defaultDecision":"allow","handlers":[]}');
  const bytes = cases[name]();
  const before = memory();
  const start = process.hrtime.bigint();
  let code = 'accepted';
  try {
    await NavigationPolicy.fromBundle(bytes, { trustedKeys: { app: publicKey }, signature: btoa('x'.repeat(64)) });
  } catch (error) {
    code = error.code;
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(JSON.stringify({ code, ms, grown: memory() - before, peakRSS: process.resourceUsage().maxRSS * 1024 }));
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4]);
} else {
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const builds = [['after', resolve(process.argv[2] ?? resolve(root, 'dist/wasm'))]];
  if (process.argv[3]) builds.push(['before', resolve(process.argv[3])]);
  const rounds = Number(process.env.ROUNDS ?? 5);
  const script = fileURLToPath(import.meta.url);
  for (const name of Object.keys(cases)) {
    const runs = Object.fromEntries(builds.map(([label]) => [label, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (const [label, dist] of builds) {
        runs[label].push(JSON.parse(execFileSync(process.execPath, [script, '--child', dist, name], { encoding: 'utf8' })));
      }
    }
    console.log(name);
    const medians = {};
    for (const [label] of builds) {
      const list = runs[label];
      medians[label] = { ms: median(list.map((run) => run.ms)), peakRSS: median(list.map((run) => run.peakRSS)) };
      console.log(
        `  ${label}: ${list[0].code}, linear memory +${(median(list.map((run) => run.grown)) / MiB).toFixed(2)} MiB, ` +
          `${medians[label].ms.toFixed(1)} ms, peak RSS ${(medians[label].peakRSS / MiB).toFixed(0)} MiB (medians of ${rounds})`);
    }
    if (medians.before) {
      console.log(`  after/before: time ${(medians.after.ms / medians.before.ms).toFixed(3)}×, peak RSS ${(medians.after.peakRSS / medians.before.peakRSS).toFixed(2)}×`);
    }
  }
}
