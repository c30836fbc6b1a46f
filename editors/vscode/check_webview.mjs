// Checks that the script of every webview page the extension serves parses as JavaScript.
// The pages are built in template literals, so `tsc` sees their scripts as strings: an
// unbalanced quote or a merge's conflict markers there type-check, bundle and package, and
// only break the view inside VS Code. Run by build.sh after the type check.
// Usage: node check_webview.mjs   (from editors/vscode, with node_modules installed)
import { buildSync } from 'esbuild';
import { createRequire } from 'node:module';
import vm from 'node:vm';

const pages = [{ file: 'src/contextView.ts', fn: 'page' }];
const require = createRequire(import.meta.url);
// The extension's modules import vscode at load; building a page needs none of it.
const vscodeStub = new Proxy({}, { get: () => new Proxy(function () {}, { get: (t, k) => (k === 'prototype' ? {} : undefined) }) });
let failed = 0;
for (const { file, fn } of pages) {
  const out = buildSync({ entryPoints: [file], bundle: true, platform: 'node', format: 'cjs', external: ['vscode'], write: false, logLevel: 'silent' });
  const mod = { exports: {} };
  new Function('module', 'exports', 'require', out.outputFiles[0].text)(mod, mod.exports, (id) => (id === 'vscode' ? vscodeStub : require(id)));
  if (typeof mod.exports[fn] !== 'function') {
    console.error(`check_webview: ${file} exports no function ${fn}`);
    failed++;
    continue;
  }
  const html = mod.exports[fn]('NONCE');
  const scripts = [...html.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  if (scripts.length === 0) {
    console.error(`check_webview: ${file} ${fn}() serves no script`);
    failed++;
  }
  for (const [i, src] of scripts.entries()) {
    try {
      new vm.Script(src, { filename: `${file} ${fn}() script ${i + 1}` });
    } catch (e) {
      const line = /:(\d+)/.exec(e.stack ?? '')?.[1];
      console.error(`check_webview: ${file} ${fn}() script ${i + 1} does not parse: ${e.message}` + (line ? `\n  line ${line}: ${src.split('\n')[Number(line) - 1]?.trim()}` : ''));
      failed++;
    }
  }
}
if (failed) process.exit(1);
console.log(`check_webview: ${pages.length} page(s), their scripts parse`);
