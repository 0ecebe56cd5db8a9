// The module in a real browser: headless Chromium loads a page from a local server (dist/wasm,
// the vector files and the runner), which imports navpolicy.mjs, decides every conformance
// vector and posts the results back. Every vector must pass in Chromium as in node.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { test } from 'node:test';

import { conformanceDirectory, dist, scratch } from './support.mjs';
import { describeFailure } from './vectors.mjs';

const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

/** A static server for the page, the package and the vectors; resolves the posted report. */
function serve() {
  let deliver;
  const report = new Promise((resolve) => {
    deliver = resolve;
  });
  const here = new URL('.', import.meta.url).pathname;
  const roots = { '/dist/': dist, '/conformance/': conformanceDirectory, '/': here };
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    if (request.method === 'POST' && path === '/result') {
      let body = '';
      request.on('data', (chunk) => { body += chunk; });
      request.on('end', () => {
        response.end('ok');
        deliver(JSON.parse(body));
      });
      return;
    }
    if (path === '/conformance/') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(readdirSync(conformanceDirectory).filter((name) => name.endsWith('.json')).sort()));
      return;
    }
    const prefix = Object.keys(roots).find((candidate) => path.startsWith(candidate));
    const file = normalize(join(roots[prefix], path.slice(prefix.length) || (prefix === '/' ? 'browser/index.html' : '')));
    if (!file.startsWith(roots[prefix]) || !existsSync(file)) {
      response.statusCode = 404;
      response.end();
      return;
    }
    response.setHeader('content-type', types[extname(file)] ?? 'application/octet-stream');
    response.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, report })));
}

test('every conformance vector passes in headless Chromium', { timeout: 120_000, skip: !existsSync(chromium) && `no ${chromium}` }, async (t) => {
  const { server, report } = await serve();
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = spawn(chromium, [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage',
    `--user-data-dir=${scratch()}`, url,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  browser.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-4000); });
  const exited = new Promise((resolve) => browser.on('exit', (code) => resolve({ exited: code })));
  try {
    const result = await Promise.race([report, exited]);
    assert.ok(result.exited === undefined, `chromium exited (${result.exited}) before reporting: ${stderr}`);
    assert.equal(result.error, null, result.error);
    const files = readdirSync(conformanceDirectory).filter((name) => name.endsWith('.json'));
    assert.equal(result.files.length, files.length);
    for (const file of result.files) t.diagnostic(`${file.file} (${file.name}): ${file.passed} passed, ${file.failed} failed`);
    const failures = result.files.flatMap((file) => file.failures);
    assert.equal(failures.length, 0, failures.map(describeFailure).join('\n'));
    assert.ok(result.files.every((file) => file.passed > 0));
    t.diagnostic(result.userAgent);
  } finally {
    browser.kill();
    server.close();
  }
});
