// The node half of bench/wasm.sh (issue 43): decisions per second through the JavaScript API,
// and the time to load a compiled bundle. Prints one JSON object.
// The machine these run on is shared, so the rates are per CPU second of this process
// (process.cpuUsage), as bench/wasm.sh measures navpolicyd's; wall-clock rates are printed too.
//   node bench/wasm-bench.mjs decide DIST CONFIG URLS DECISIONS
//   node bench/wasm-bench.mjs load DIST BUNDLE RUNS
//   node bench/wasm-bench.mjs engine DIST CONFIG URLS DECISIONS
//     the engine alone: DIST is a module built with WASM_BENCH=1 (scripts/build-wasm.sh), whose
//     navpolicy_bench_decide_loop export decides the URLs in a loop inside the module, so no
//     JavaScript runs per decision (bench/wasm-engine-loop.swift)
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
} else if (mode === 'engine') {
  const [urlsPath, countText] = rest;
  // The raw module, not the API: the bench export is the only call per run. random_get seeds
  // Swift's hashing; nothing else it imports is called on this path.
  let memory = null;
  const module = new WebAssembly.Module(readFileSync(join(resolve(dist), 'navpolicy.wasm')));
  const imports = {};
  for (const entry of WebAssembly.Module.imports(module)) {
    imports[entry.module] ??= {};
    imports[entry.module][entry.name] = entry.name === 'random_get'
      ? (pointer, length) => { crypto.getRandomValues(new Uint8Array(memory.buffer, pointer, length)); return 0; }
      : () => 52;
  }
  const exports = new WebAssembly.Instance(module, imports).exports;
  memory = exports.memory;
  exports._initialize?.();
  if (typeof exports.navpolicy_bench_decide_loop !== 'function') {
    console.error(`wasm-bench.mjs: ${dist}/navpolicy.wasm has no bench export (build it with WASM_BENCH=1 scripts/build-wasm.sh)`);
    process.exit(2);
  }
  const copyIn = (bytes) => {
    const pointer = exports.navpolicy_alloc(bytes.length);
    new Uint8Array(memory.buffer, pointer, bytes.length).set(bytes);
    return pointer;
  };
  const config = readFileSync(input);
  const handle = exports.navpolicy_policy_from_config(copyIn(config), config.length);
  const urls = readFileSync(urlsPath);
  const urlsPointer = copyIn(urls);
  if (handle <= 0) throw new Error('the config did not compile');
  const decisions = Number(countText);
  // A warm-up run, so the engine's functions are optimized before the measured one.
  exports.navpolicy_bench_decide_loop(handle, urlsPointer, urls.length, Math.min(decisions, 20000));
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const cancelled = exports.navpolicy_bench_decide_loop(handle, urlsPointer, urls.length, decisions);
  const wall = (performance.now() - start) / 1000;
  const cpuUsed = process.cpuUsage(cpuStart);
  const cpu = (cpuUsed.user + cpuUsed.system) / 1e6;
  if (cancelled < 0) throw new Error('the bench export refused its input');
  console.log(JSON.stringify({ decisions, cancelled, cpuSeconds: cpu, wallSeconds: wall, decisionsPerCPUSecond: decisions / cpu, decisionsPerSecond: decisions / wall }));
} else {
  console.error('usage: wasm-bench.mjs decide DIST CONFIG URLS DECISIONS | load DIST BUNDLE RUNS | engine DIST CONFIG URLS DECISIONS');
  process.exit(2);
}
