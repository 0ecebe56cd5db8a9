// The node half of bench/wasm.sh (issue 43): decisions per second through the JavaScript API,
// and the time to load a compiled bundle. Prints one JSON object.
//   node bench/wasm-bench.mjs decide DIST CONFIG URLS SECONDS
//   node bench/wasm-bench.mjs load DIST BUNDLE RUNS
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const [mode, dist, input, ...rest] = process.argv.slice(2);
const { NavigationPolicy } = await import(join(resolve(dist), 'navpolicy.mjs'));

if (mode === 'decide') {
  const [urlsPath, secondsText] = rest;
  const policy = NavigationPolicy.fromConfig(readFileSync(input, 'utf8'));
  // As `navpolicyd bench --urls`: one URL a line, decided round-robin with the request defaults.
  const requests = readFileSync(urlsPath, 'utf8').split('\n').filter((line) => line.length > 0).map((url) => ({ url }));
  const seconds = Number(secondsText);
  let decisions = 0;
  let cancelled = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  // The clock is read every 256 decisions, as a small share of the loop.
  while (performance.now() < end) {
    for (let index = 0; index < 256; index += 1) {
      if (policy.decide(requests[(decisions + index) % requests.length]).decision === 'cancel') cancelled += 1;
    }
    decisions += 256;
  }
  const elapsed = (performance.now() - start) / 1000;
  console.log(JSON.stringify({ decisions, cancelled, seconds: elapsed, decisionsPerSecond: decisions / elapsed }));
} else if (mode === 'load') {
  const runs = Number(rest[0] ?? 3);
  const bytes = new Uint8Array(readFileSync(input));
  const times = [];
  let policy = null;
  for (let run = 0; run < runs; run += 1) {
    policy?.release();
    const start = performance.now();
    policy = await NavigationPolicy.fromBundle(bytes);
    times.push((performance.now() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  const probe = policy.decide({ url: 'https://site12345.example/home' });
  console.log(JSON.stringify({ bytes: bytes.length, layout: policy.layout, loadSeconds: times[Math.floor(times.length / 2)], bestSeconds: times[0], runs, probe: probe.decision }));
} else {
  console.error('usage: wasm-bench.mjs decide DIST CONFIG URLS SECONDS | load DIST BUNDLE RUNS');
  process.exit(2);
}
