// The browser half of chromium.test.mjs: the module as a web page imports it, every vector file
// the server lists, decided in the page; the results go back by POST (and into the DOM).
import { readVectorFile, runVectorFile } from '/vectors.mjs';

const report = { userAgent: navigator.userAgent, files: [], error: null };
try {
  const { NavigationPolicy } = await import('/dist/navpolicy.mjs');
  const files = await (await fetch('/conformance/')).json();
  for (const file of files) {
    const document = readVectorFile(await (await fetch(`/conformance/${file}`)).text(), file);
    report.files.push(await runVectorFile(NavigationPolicy, document, file));
  }
} catch (error) {
  report.error = `${error.name}: ${error.message}`;
}
document.getElementById('result').textContent = JSON.stringify(report);
await fetch('/result', { method: 'POST', body: JSON.stringify(report) });
