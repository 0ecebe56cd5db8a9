// The node half of bench/wasm.sh (issue 43): decisions per second through the JavaScript API,
// and the time to load a compiled bundle. Prints one JSON object.
// The machine these run on is shared, so the rates are per CPU second of this process
// (process.cpuUsage), as bench/wasm.sh measures navpolicyd's; wall-clock rates are printed too.
//   node bench/wasm-bench.mjs decide DIST CONFIG URLS DECISIONS
//   node bench/wasm-bench.mjs load DIST BUNDLE RUNS
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const [mode, dist, input, ...rest] = process.argv.slice(2);
const { NavigationPolicy } = await import(join(resolve(dist), 'navpolicy.mjs'));

if (mode === 'decide') {
  const [urlsPath, countText] = rest;
  const policy = NavigationPolicy.fromConfig(readFileSync(input, 'utf8'));
  // As `navpolicyd bench --urls`: one URL a line, decided round-robin with the request defaults.
  const requests = readFileSync(urlsPath, 'utf8').split('\n').filter((line) => line.length > 0).map((url) => ({ url }));
  const decisions = Number(countText);
  // A warm-up pass, so the JIT has compiled the glue before the measured loop.
  for (let index = 0; index < Math.min(decisions, 20000); index += 1) policy.decide(requests[index % requests.length]);
  let cancelled = 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  for (let index = 0; index < decisions; index += 1) {
    if (policy.decide(requests[index % requests.length]).decision === 'cancel') cancelled += 1;
  }
  const wall = (performance.now() - start) / 1000;
  const cpuUsed = process.cpuUsage(cpuStart);
  const cpu = (cpuUsed.user + cpuUsed.system) / 1e6;
  console.log(JSON.stringify({ decisions, cancelled, cpuSeconds: cpu, wallSeconds: wall, decisionsPerCPUSecond: decisions / cpu, decisionsPerSecond: decisions / wall }));
} else if (mode === 'load') {
  const runs = Number(rest[0] ?? 3);
  const bytes = new Uint8Array(readFileSync(input));
  const times = [];
  const cpuTimes = [];
  let policy = null;
  for (let run = 0; run < runs; run += 1) {
    policy?.release();
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    policy = await NavigationPolicy.fromBundle(bytes);
    times.push((performance.now() - start) / 1000);
    const cpuUsed = process.cpuUsage(cpuStart);
    cpuTimes.push((cpuUsed.user + cpuUsed.system) / 1e6);
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const probe = policy.decide({ url: 'https://site12345.example/home' });
  console.log(JSON.stringify({ bytes: bytes.length, layout: policy.layout, loadSeconds: median(times), loadCPUSeconds: median(cpuTimes), runs, probe: probe.decision }));
} else {
  console.error('usage: wasm-bench.mjs decide DIST CONFIG URLS DECISIONS | load DIST BUNDLE RUNS');
  process.exit(2);
}
