#!/usr/bin/env node
// End-to-end check of the compactd VS Code extension (its VSIX) and server inside a REAL
// VS Code (code-server web build) driven by Debian's Chromium through playwright-core.
// Adapted from the project's shared e2e recipe; run by editors/e2e/vscode/run.sh.
//
// Usage:
//   node code_server_e2e.mjs --vsix X.vsix [--shots DIR] [--out result.json] -- SERVER_CMD [ARGS...]
// (run_vscode_e2e.sh passes the defaults under $E2E_HOME). Env:
//   CODE_SERVER   code-server binary (required)
//   CHROMIUM      browser binary (default /usr/bin/chromium)
//   E2E_GAUGE_METHOD  custom notification method the bundled test extension listens to (default stub/tokenGauge)
//   E2E_FILE_NAME     name of the file to create+open in the workspace (default conversation.md)
//   E2E_FILE_TEXT     its content (default: 50 "user: message N ..." lines)
//   E2E_FILE_SRC      copy this file's bytes instead (for real transcripts too large for the env)
//   E2E_HOVER_LINE_TEXT  hover the first line containing this text (default: the 2nd line)
//   E2E_GAUGE_RE      regexp the status-bar gauge text must match (default "ctx \\d+")
//   E2E_ACTION_TITLE  code action to apply (default "Compact conversation")
//   E2E_DRYRUN_TITLE  second action (default "Dry-run compaction"; "" to skip)
//   E2E_HOVER_RE      regexp the hover must match (default "stub hover")
//   E2E_TOAST_RE      regexp of the window/showMessage toast after the action (default "compacted"; "" to skip)
//   E2E_PROGRESS_RE   regexp of the workDoneProgress title in the status bar (default "Compacting"; soft check)
//   E2E_SETTINGS_JSON extra user settings (JSON object), e.g. for the real extension
//   E2E_WORKSPACE_SETTINGS_JSON the workspace's settings (.vscode/settings.json; JSON object)
//   E2E_HEALTH_RE     when set, run "compactd: Show health" last and check the page
//                     it opens against this regexp (and E2E_HEALTH_NOT_RE, which must not match)
//   E2E_WORKSPACE_SRC copy this folder as the workspace (before E2E_FILE_*)
//   E2E_FORK_TAB_RE   regexp of the editor tab the compaction opens (the fork; "" skips)
//   E2E_DRYRUN_TAB_RE regexp of the editor tab the dry run opens (default "Preview"; "" skips)
//   E2E_CONTEXT_VIEW_RE  when set, open the compactd Context view (webview) after the hover and
//                     check its text against this regexp, its stacked bar, turn bars and the dry
//                     run's removed spans (screenshot 03b-context-view)
//   E2E_README_SHOT=1 take the README screenshot (Context view open, hover shown) and stop there
//   E2E_HEADFUL=1     (debug) no --headless
//   E2E_KEEP_TMP=1    keep the temp dir (code-server.log, ud/logs/*/exthost*/..., ext.jsonl) after a pass
// Exit status: 0 pass, 1 a check failed, 2 setup error.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const argv = process.argv.slice(2);
const opt = { vsix: null, shots: path.resolve('shots'), out: path.resolve('code-server-e2e-result.json') };
let serverCmd = null;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--') { serverCmd = argv.slice(i + 1); break; }
  if (a === '--vsix') opt.vsix = path.resolve(argv[++i]);
  else if (a === '--shots') opt.shots = path.resolve(argv[++i]);
  else if (a === '--out') opt.out = path.resolve(argv[++i]);
  else { serverCmd = argv.slice(i); break; }
}
if (!serverCmd || serverCmd.length === 0) {
  if (process.env.E2E_LSP_CMD_JSON) serverCmd = JSON.parse(process.env.E2E_LSP_CMD_JSON);
  else serverCmd = [];
}
const CODE_SERVER = process.env.CODE_SERVER;
if (serverCmd.length === 0 || !opt.vsix || !CODE_SERVER) {
  console.error('usage: CODE_SERVER=bin code_server_e2e.mjs --vsix f [--shots d] [--out f] -- server-cmd [args...]');
  process.exit(64);
}
if (!fs.existsSync(opt.vsix)) { console.error(`no VSIX at ${opt.vsix} (build it with setup_vscode_e2e.sh)`); process.exit(2); }
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const GAUGE_RE = new RegExp(process.env.E2E_GAUGE_RE || 'ctx \\d+');
const HOVER_RE = new RegExp(process.env.E2E_HOVER_RE || 'stub hover');
const PROGRESS_RE = new RegExp(process.env.E2E_PROGRESS_RE || 'Compacting');
const TOAST_RE = (process.env.E2E_TOAST_RE ?? 'compacted') ? new RegExp(process.env.E2E_TOAST_RE ?? 'compacted') : null;
const ACTION = process.env.E2E_ACTION_TITLE || 'Compact conversation';
const DRYRUN = process.env.E2E_DRYRUN_TITLE ?? 'Dry-run compaction';

const FILE_NAME = process.env.E2E_FILE_NAME || 'conversation.md';
const FORK_TAB_RE = process.env.E2E_FORK_TAB_RE ? new RegExp(process.env.E2E_FORK_TAB_RE) : null;
const DRYRUN_TAB_RE = (process.env.E2E_DRYRUN_TAB_RE ?? 'Preview') ? new RegExp(process.env.E2E_DRYRUN_TAB_RE ?? 'Preview') : null;
const T0 = Date.now();
const R = { serverCmd, steps: [], checks: [], shots: [], ok: false };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-e2e-'));
fs.mkdirSync(opt.shots, { recursive: true });
fs.mkdirSync(path.dirname(opt.out), { recursive: true });
let cs = null, browser = null, page = null;

async function step(name, fn) {
  const s = Date.now();
  try {
    const v = await fn();
    R.steps.push({ name, ms: Date.now() - s, ok: true });
    console.log(`  step ${name}: ${Date.now() - s} ms`);
    return v;
  } catch (e) {
    R.steps.push({ name, ms: Date.now() - s, ok: false, err: String(e?.message ?? e).split('\n')[0] });
    console.log(`  step ${name}: FAILED after ${Date.now() - s} ms: ${String(e?.message ?? e).split('\n')[0]}`);
    if (page) {
      await shot(`fail-${name.replace(/\W+/g, '_')}`).catch(() => {});
      await page.content().then((h) => fs.writeFileSync(path.join(tmp, `fail-${name.replace(/\W+/g, '_')}.html`), h)).catch(() => {});
    }
    throw e;
  }
}
function check(name, ok, detail) { R.checks.push({ name, ok: !!ok, detail }); console.log(`  [${ok ? 'ok' : name.includes('optional') ? 'miss' : 'FAIL'}] ${name}${detail !== undefined ? ' — ' + JSON.stringify(detail).slice(0, 160) : ''}`); return ok; }
async function shot(name) { const f = path.join(opt.shots, `${name}.png`); await page.screenshot({ path: f }); R.shots.push(f); return f; }
function freePort() { return new Promise((res) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }); }); }
function extLog() { try { return fs.readFileSync(path.join(tmp, 'ext.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)); } catch { return []; } }
async function waitFor(pred, ms, what) { const end = Date.now() + ms; while (Date.now() < end) { const v = await pred(); if (v) return v; await new Promise((r) => setTimeout(r, 100)); } throw new Error(`timeout: ${what}`); }

// Opens name with Quick Open and waits until its tab is the active one. Enter is pressed only
// once the list's first row is name: before the filter applies, the first row is the most
// recently opened editor (after a compaction, the fork), which Enter would reopen instead.
async function quickOpen(name) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 10000 });
  await input.fill(name);
  const first = page.locator('.quick-input-list .monaco-list-row').first();
  await waitFor(async () => (await first.innerText().catch(() => '')).includes(name), 10000, `Quick Open listing ${name} first`);
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: name }).first().waitFor({ timeout: 15000 });
}

async function main() {
  const ud = path.join(tmp, 'ud'), ext = path.join(tmp, 'ext'), ws = path.join(tmp, 'ws');
  for (const d of [ud, ext, ws, path.join(ud, 'User')]) fs.mkdirSync(d, { recursive: true });
  const lines = ['# conversation'];
  for (let i = 1; i <= 50; i++) lines.push(`user: message ${i} with some words in it`);
  if (process.env.E2E_WORKSPACE_SRC) fs.cpSync(process.env.E2E_WORKSPACE_SRC, ws, { recursive: true });
  if (process.env.E2E_FILE_SRC) fs.copyFileSync(process.env.E2E_FILE_SRC, path.join(ws, FILE_NAME));
  else if (!process.env.E2E_WORKSPACE_SRC) fs.writeFileSync(path.join(ws, FILE_NAME), process.env.E2E_FILE_TEXT ?? lines.join('\n') + '\n');
  if (process.env.E2E_WORKSPACE_SETTINGS_JSON) {
    fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify(JSON.parse(process.env.E2E_WORKSPACE_SETTINGS_JSON), null, 2));
  }
  fs.writeFileSync(path.join(ud, 'User', 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'git.enabled': false,
    'chat.commandCenter.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true, // 1.139: hides the Chat view and the AI "Fix"/"Explain" quick fixes
    'editor.lightbulb.enabled': 'on',
    'editor.hover.delay': 100,
    ...JSON.parse(process.env.E2E_SETTINGS_JSON || '{}'), // e.g. the real extension's server path
  }, null, 2));

  await step('install-extension', () => {
    execFileSync(CODE_SERVER, ['--user-data-dir', ud, '--extensions-dir', ext, '--install-extension', opt.vsix], { stdio: 'pipe' });
  });

  const port = await freePort();
  await step('start code-server', async () => {
    fs.writeFileSync(path.join(tmp, 'config.yaml'), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
    cs = spawn(CODE_SERVER, [
      '--config', path.join(tmp, 'config.yaml'), '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
      '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
      '--user-data-dir', ud, '--extensions-dir', ext, ws,
    ], {
      detached: true, stdio: ['ignore', fs.openSync(path.join(tmp, 'code-server.log'), 'a'), fs.openSync(path.join(tmp, 'code-server.log'), 'a')],
      env: { ...process.env, E2E_LSP_CMD_JSON: JSON.stringify(serverCmd), E2E_SERVER_CWD: process.cwd(), E2E_EXT_LOG: path.join(tmp, 'ext.jsonl') },
    });
    await waitFor(() => fs.readFileSync(path.join(tmp, 'code-server.log'), 'utf8').includes('HTTP server listening'), 30000, 'code-server listening');
  });

  await step('launch chromium', async () => {
    // A fresh, empty profile dir each run (persistent context = explicit --user-data-dir).
    browser = await chromium.launchPersistentContext(path.join(tmp, 'chrome-profile'), {
      executablePath: CHROMIUM,
      headless: !process.env.E2E_HEADFUL,
      viewport: { width: 1400, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    page = browser.pages()[0] ?? await browser.newPage();
    page.on('console', (m) => { if (m.type() === 'error') (R.consoleErrors ??= []).push(m.text().slice(0, 300)); });
  });

  await step('load workbench', async () => {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    await page.locator('.statusbar').waitFor({ timeout: 60000 });
  });
  await shot('01-workbench');

  await step('open file (Quick Open)', async () => {
    // Explorer click would work too; quick open is layout independent.
    await page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 } }).catch(() => {});
    await quickOpen(FILE_NAME);
    await page.locator('.monaco-editor .view-lines').first().waitFor({ timeout: 15000 });
  });

  const gaugeItem = page.locator('.statusbar-item', { hasText: GAUGE_RE });
  const gauge1 = await step('status bar gauge (custom notification)', async () => {
    await gaugeItem.first().waitFor({ timeout: 30000 });
    return (await gaugeItem.first().innerText()).trim();
  });
  check('status bar gauge text', GAUGE_RE.test(gauge1), gauge1);
  await shot('02-file-open-gauge');

  if (process.env.E2E_README_SHOT) {
    await contextView();
    await hoverLine();
    await page.waitForTimeout(1000); // the hover fades in
    await shot('00-readme');
    return;
  }

  await step('diagnostic squiggle', async () => {
    await page.locator('.monaco-editor .squiggly-warning, .monaco-editor .squiggly-error, .monaco-editor .squiggly-info').first().waitFor({ state: 'attached', timeout: 15000 });
  });
  check('diagnostic rendered', true);

  const hoverText = await hoverLine();
  check('hover text', HOVER_RE.test(hoverText), hoverText);
  await shot('03-hover');
  await page.keyboard.press('Escape');
  if (process.env.E2E_CONTEXT_VIEW_RE) {
    const text = await contextView();
    check('context view text', new RegExp(process.env.E2E_CONTEXT_VIEW_RE).test(text), text);
    await page.keyboard.press('Escape');
  }
  // Hovers line 2 of the file (2nd view-line from the top; DOM order is not visual order), or
  // the first line containing E2E_HOVER_LINE_TEXT, and returns the hover's text.
  async function hoverLine() {
    return step('hover', async () => {
      const box = process.env.E2E_HOVER_LINE_TEXT
        ? await page.locator('.monaco-editor .view-line', { hasText: process.env.E2E_HOVER_LINE_TEXT }).first().boundingBox()
        : await page.evaluate(() => {
          const r = [...document.querySelectorAll('.monaco-editor .view-lines .view-line')]
            .map((e) => e.getBoundingClientRect()).sort((a, b) => a.top - b.top)[1];
          return { x: r.left, y: r.top, width: r.width, height: r.height };
        });
      await page.mouse.move(box.x + 20, box.y + box.height / 2);
      await page.mouse.move(box.x + 25, box.y + box.height / 2);
      const hover = page.locator('.monaco-hover', { hasText: HOVER_RE }).first();
      await hover.waitFor({ timeout: 15000 });
      return (await hover.innerText()).trim();
    });
  }

  // Opens the compactd Context view (a webview in the Explorer) with the palette command,
  // waits for its dry run, checks what it draws and returns its text.
  async function contextView() {
    await step('open the Context view', async () => {
      await page.keyboard.press('Control+Shift+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10000 });
      await input.fill('>compactd: Show context window');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Show context window' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
    });
    // The view's page runs in an iframe inside the webview's own iframe.
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const text = await step('Context view draws the window and the dry run', async () => {
      await frame.locator('#total').waitFor({ timeout: 30000 });
      await waitFor(async () => /→/.test(await frame.locator('#dryrun').innerText().catch(() => '')), 60000, 'the dry run in the Context view');
      return (await frame.locator('body').innerText()).trim();
    });
    const segments = await frame.locator('#stack > div').count();
    check('context view: the window as one stacked bar by category', segments >= 2, segments);
    const bars = await frame.locator('#turns rect.kept').count();
    check('context view: tokens per turn as bars', bars >= 1, bars);
    const removed = await frame.locator('#turns rect.removed').count();
    check("context view: the dry run's removed spans highlighted", removed >= 1, removed);
    check('context view: names what lies outside the transcript', /outside the transcript/.test(text), text.slice(0, 200));
    check('context view: the cost', /Cost ·/.test(text), text.match(/Cost ·[^\n]*/)?.[0]);
    check("context view: where compactd's MCP server and hooks are installed", /MCP server:[\s\S]*Hooks:/.test(text), text.match(/MCP server:[^\n]*/)?.[0]);
    R.contextView = text;
    await page.waitForTimeout(300);
    await shot('03b-context-view');
    return text;
  }

  // VS Code drops the command cache of a superseded code-action list: an entry picked from a
  // menu built just before the list for the caret's new position arrived fails with "Actual
  // command not found, wanted to execute <cmd>". Rather than wait "long enough" for the
  // requests to settle, applyUntil checks the action's effect and, on that error, picks the
  // entry again from the current list.
  const staleToast = () => page.locator('.notification-toast, .notifications-toasts .monaco-list-row', { hasText: /command not found/i });
  async function clearNotifications() {
    await page.keyboard.press('Control+Shift+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 10000 });
    await input.fill('>Notifications: Clear All Notifications');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Clear All Notifications' }).first().waitFor({ timeout: 10000 });
    await page.keyboard.press('Enter');
    await waitFor(async () => (await staleToast().count()) === 0, 10000, 'the notifications cleared');
  }
  async function applyUntil(title, via, done, ms, what) {
    for (let attempt = 1; ; attempt++) {
      await applyCodeAction(title, via);
      const outcome = await waitFor(async () => (await done()) ? 'done' : ((await staleToast().count()) > 0 ? 'stale' : null), ms, what);
      if (outcome === 'done') return;
      console.log(`  (${title}: picked from a superseded code-action list, attempt ${attempt}; picking again)`);
      if (attempt === 3) throw new Error(`${title}: "command not found" three times`);
      await clearNotifications();
    }
  }

  async function applyCodeAction(title, via) {
    // Put the caret on line 1 where the diagnostic is, then open the Quick Fix menu.
    await page.locator('.monaco-editor .view-line').first().click();
    await page.keyboard.press('Control+Home');
    if (via === 'lightbulb') {
      // 1.100 draws the bulb in the glyph margin (gutter); the old .lightBulbWidget content widget stays hidden.
      const bulb = page.locator('.monaco-editor [class*="lightbulb"], .monaco-editor [class*="light-bulb"]').filter({ visible: true }).first();
      await bulb.waitFor({ state: 'visible', timeout: 10000 });
      await shot('04-lightbulb');
      await bulb.click();
    } else if (via === 'palette') {
      await page.keyboard.press('Control+Shift+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10000 });
      await input.fill('>Quick Fix');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Quick Fix' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
    } else {
      await page.keyboard.press('Control+.');
    }
    const item = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
    await item.waitFor({ timeout: 10000 });
    await shot(`05-codeaction-menu-${via}`);
    // A .context-view-pointerBlock overlay swallows the first click in the action
    // widget, so pick the entry with the keyboard: move focus until it is ours, Enter.
    for (let i = 0; i < 20; i++) {
      const focused = page.locator('.action-widget .monaco-list-row.focused').first();
      // aria-label is "<title>" (1.100) or "<title>, Quick Fix" (1.139)
      const label = (await focused.getAttribute('aria-label').catch(() => null)) ?? '';
      if (label === title || label.startsWith(`${title}, `)) { await page.keyboard.press('Enter'); return; }
      await page.keyboard.press('ArrowDown');
    }
    throw new Error(`could not focus code action ${title}`);
  }

  let progressSeen = null;
  await step(`code action "${ACTION}" via lightbulb`, async () => {
    // vscode-languageclient shows server workDoneProgress in the status bar (ProgressLocation.Window).
    const prog = page.locator('.statusbar-item', { hasText: PROGRESS_RE }).first();
    await applyUntil(ACTION, 'lightbulb', async () => {
      if (!progressSeen && await prog.isVisible().catch(() => false)) {
        progressSeen = (await prog.innerText().catch(() => '')).trim();
        await shot('05b-progress');
      }
      // Done when the status-bar gauge text changed (works for any extension). Not on the test
      // extension's own log (E2E_EXT_LOG): it is written before the workbench repaints the item.
      const now = (await gaugeItem.first().innerText().catch(() => gauge1)).trim();
      return now !== gauge1;
    }, 15000, 'gauge after action');
  });
  check('workDoneProgress visible in status bar (optional: needs a server whose progress lasts >~200 ms)', !!progressSeen, progressSeen);
  if (TOAST_RE) {
    const toast = await step('notification toast (window/showMessage)', async () => {
      // A toast hides itself after a while (sooner than a slow step on a loaded machine ends);
      // the notification center keeps every message until cleared: look there when no toast shows.
      const shown = { hasText: TOAST_RE, hasNotText: /command not found/i };
      const t = page.locator('.notification-toast, .notifications-toasts .monaco-list-row', shown).first();
      if (await t.isVisible().catch(() => false)) return (await t.innerText()).trim();
      await page.keyboard.press('Control+Shift+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10000 });
      await input.fill('>Notifications: Show Notifications');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Show Notifications' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      const inCenter = page.locator('.notifications-center .monaco-list-row', shown).first();
      await inCenter.waitFor({ timeout: 10000 });
      const text = (await inCenter.innerText()).trim();
      await page.keyboard.press('Escape');
      return text;
    }).catch(() => null);
    check('showMessage toast', !!toast, toast);
  }
  const gauge2 = (await gaugeItem.first().innerText()).trim();
  check('gauge changed after action', gauge2 !== gauge1, { before: gauge1, after: gauge2 });
  if (FORK_TAB_RE) {
    const tab = await step('fork opened in an editor', async () => {
      const t = page.locator('.tab', { hasText: FORK_TAB_RE, hasNotText: FILE_NAME }).first(); // the fork's, not the original's
      await t.waitFor({ timeout: 15000 });
      return (await t.innerText()).trim();
    }).catch(() => null);
    check('fork tab', !!tab, tab);
  }
  if (FORK_TAB_RE && process.env.E2E_RECALL !== '0') {
    // The fork's placeholders name recall handles: "compactd: Recall what a placeholder
    // replaced…" (asked for the handle) opens what one replaced, byte for byte.
    const handles = [];
    for (const f of fs.readdirSync(ws)) {
      if (!f.endsWith('.jsonl') || f === FILE_NAME) continue;
      for (const m of fs.readFileSync(path.join(ws, f), 'utf8').matchAll(/recall (r[0-9a-f]{6,64})\b/g)) handles.push(m[1]);
    }
    check('the fork names recall handles', handles.length > 0, handles.slice(0, 3));
    if (handles.length > 0) {
      const h = handles[0];
      const tab = await step('Recall… (command palette)', async () => {
        await page.keyboard.press('Control+Shift+P');
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ timeout: 10000 });
        await input.fill('>compactd: Recall what a placeholder replaced');
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Recall what a placeholder replaced' }).first().waitFor({ timeout: 10000 });
        await page.keyboard.press('Enter');
        await page.locator('.quick-input-widget input').waitFor({ timeout: 10000 });
        await page.keyboard.type(h);
        await page.keyboard.press('Enter');
        const t = page.locator('.tab', { hasText: `${h}.txt` }).first();
        await t.waitFor({ timeout: 20000 });
        return (await t.innerText()).trim();
      }).catch(() => null);
      check('the recalled content opened in an editor', !!tab, tab);
      await shot('06a-recall');
    }
  }
  if (FORK_TAB_RE && process.env.E2E_HANDOFF !== '0') {
    // "Continue in another agent…": from the status bar's actions (to Codex) and from the
    // palette (to Gemini CLI). The agents are the server's (the extension's quick pick), then the
    // server asks about compactd's MCP server there; the new session opens in an editor and is
    // written in the agent's own sessions folder.
    const handoff = async (via, label, tabRe) => {
      await step('back to the original (Quick Open)', () => quickOpen(FILE_NAME));
      return step(`Continue in ${label} (${via})`, async () => {
        if (via === 'status bar') {
          await gaugeItem.first().click();
          await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Continue in…' }).first().waitFor({ timeout: 10000 });
          await page.keyboard.type('Continue in');
          await page.keyboard.press('Enter');
        } else {
          await page.keyboard.press('Control+Shift+P');
          const input = page.locator('.quick-input-widget input');
          await input.waitFor({ timeout: 10000 });
          await input.fill('>compactd: Continue in another agent');
          await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Continue in another agent' }).first().waitFor({ timeout: 10000 });
          await page.keyboard.press('Enter');
        }
        await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ timeout: 10000 });
        await page.keyboard.type(label);
        await page.keyboard.press('Enter');
        const without = page.getByRole('button', { name: 'Continue without it' }).first();
        await without.waitFor({ timeout: 20000 });
        // The button is pressed as a click on it, not at its place on the screen: once the
        // quick pick closes, the status-bar item that opened it has the focus again and shows
        // its tooltip over the notification (the pointer click then waited until the toast hid).
        await without.dispatchEvent('click');
        const t = page.locator('.tab', { hasText: tabRe }).first();
        await t.waitFor({ timeout: 20000 });
        return (await t.innerText()).trim();
      }).catch(() => null);
    };
    const files = (dir) => {
      const out = [];
      const walk = (d) => { for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) { if (e.isDirectory()) walk(path.join(d, e.name)); else out.push(e.name); } };
      walk(dir);
      return out;
    };
    const codexTab = await handoff('status bar', 'Codex CLI', /rollout-.*\.jsonl/);
    check('the Codex session handed off from the status bar opened in an editor', !!codexTab, codexTab);
    const rollouts = files(path.join(process.env.CODEX_HOME || '', 'sessions'));
    check('the handoff wrote a Codex rollout', rollouts.some((f) => /^rollout-.*\.jsonl$/.test(f)), rollouts);
    await shot('06b-handoff-codex');
    const geminiTab = await handoff('palette', 'Gemini CLI', /session-.*\.jsonl/);
    check('the Gemini CLI session handed off from the palette opened in an editor', !!geminiTab, geminiTab);
    const chats = files(path.join(process.env.HOME || '', '.gemini', 'tmp'));
    check('the handoff wrote a Gemini CLI session', chats.some((f) => /^session-.*\.jsonl$/.test(f)), chats);
    await shot('06c-handoff-gemini');
  }
  if (process.env.E2E_SEARCH !== '0') {
    // "Find a session…" (issue 32): the palette's quick pick asks the server as the user types;
    // the conversation is found by its first prompt, and picking it then "Open the transcript"
    // opens it at that line.
    let phrase = '';
    for (const line of fs.readFileSync(path.join(ws, FILE_NAME), 'utf8').split('\n')) {
      let rec;
      try { rec = JSON.parse(line); } catch { continue; }
      let text = rec?.type === 'user' ? rec.message?.content : undefined;
      if (Array.isArray(text)) text = text[0]?.type === 'text' ? text[0].text : undefined;
      if (typeof text === 'string' && !/^\s*</.test(text)) {
        phrase = (text.match(/\w+/g) ?? []).slice(0, 3).join(' ');
        break;
      }
    }
    check('the conversation has a prompt to look for', phrase.split(' ').length === 3, phrase);
    const opened = await step('Find a session… (command palette)', async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+Shift+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10000 });
      await input.fill('>compactd: Find a session');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Find a session' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      // The conversation's own hit (the forks and handed-off sessions say it too).
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: phrase }).filter({ hasText: FILE_NAME }).first();
      // The server indexes the machine after its cold scan: ask again until the hit is there.
      const deadline = Date.now() + 30000;
      for (;;) {
        await input.fill(`"${phrase}"`);
        if (await row.waitFor({ timeout: 3000 }).then(() => true, () => false)) break;
        if (Date.now() > deadline) throw new Error(`no hit for "${phrase}"`);
        await input.fill('');
      }
      await row.click();
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Open the transcript' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.type('Open the transcript');
      await page.keyboard.press('Enter');
      const t = page.locator('.tab.active', { hasText: FILE_NAME }).first();
      await t.waitFor({ timeout: 20000 });
      return (await t.innerText()).trim();
    }).catch(() => null);
    check('the session found opened in an editor', !!opened, opened);
    await shot('06d-find-session');
  }
  await page.waitForTimeout(500);
  await shot('06-after-compact');
  R.statusTooltip = await gaugeItem.first().getAttribute('aria-label').catch(() => null);

  if (DRYRUN) {
    // Back to the original transcript: the compaction moved the focus to the fork.
    await step('back to the original (Quick Open)', () => quickOpen(FILE_NAME));
    const reportTab = DRYRUN_TAB_RE ? page.locator('.tab', { hasText: DRYRUN_TAB_RE }).first() : null;
    await step(`code action "${DRYRUN}" via command palette Quick Fix`, () => reportTab
      ? applyUntil(DRYRUN, 'palette', () => reportTab.isVisible().catch(() => false), 20000, 'the dry-run report')
      : applyCodeAction(DRYRUN, 'palette'));
    if (DRYRUN_TAB_RE) {
      const tab = await step('dry-run report opened', async () => {
        await reportTab.waitFor({ timeout: 20000 });
        return (await reportTab.innerText()).trim();
      }).catch(() => null);
      check('dry-run report tab', !!tab, tab);
      await page.waitForTimeout(1000);
      await shot('06b-dry-run-report');
    }
  }

  if (process.env.E2E_AGENT_COMPACTION) {
    // The agent compacts the conversation on its own (issue 24): a compact_boundary and its
    // summary appended as Claude Code 2.1.330 writes them. The extension shows what the
    // agent's summary lost, with "Restore from before" and "Re-compact with compactd".
    await step('back to the original (Quick Open)', () => quickOpen(FILE_NAME));
    const markItem = page.locator('.statusbar-item', { hasText: /auto (\d+(\.\d+)?[kM]?|off)/ }).first();
    const mark = await step('status bar mark of the agent\'s own compaction', async () => {
      await markItem.waitFor({ timeout: 15000 });
      return (await markItem.innerText()).trim();
    }).catch(() => null);
    check('the status bar marks where the agent compacts by itself', !!mark, mark);
    const file = path.join(ws, FILE_NAME);
    const recs = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return null; } });
    const last = [...recs].reverse().find((r) => r && typeof r.uuid === 'string' && typeof r.sessionId === 'string');
    const bid = '0c0ffee0-0000-4000-8000-00000000b001';
    const boundary = { parentUuid: null, logicalParentUuid: last.uuid, isSidechain: false, userType: 'external', cwd: last.cwd, sessionId: last.sessionId,
      version: '2.1.330', type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', level: 'info', uuid: bid,
      timestamp: '2026-11-26T02:00:00.000Z', compactMetadata: { trigger: 'manual', preTokens: 40000, postTokens: 900 } };
    const summary = { parentUuid: bid, isSidechain: false, userType: 'external', cwd: last.cwd, sessionId: last.sessionId, version: '2.1.330',
      type: 'user', isCompactSummary: true, isVisibleInTranscriptOnly: true, uuid: '0c0ffee0-0000-4000-8000-00000000b002',
      timestamp: '2026-11-26T02:00:01.000Z', message: { role: 'user', content: 'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and Intent: the user asked for help with the project.' } };
    const appended = Date.now();
    fs.appendFileSync(file, JSON.stringify(boundary) + '\n' + JSON.stringify(summary) + '\n');
    const toast = page.locator('.notification-toast', { hasText: /compacted this conversation on its own/ }).first();
    const toastText = await step('agent compaction notification', async () => {
      await toast.waitFor({ timeout: 20000 });
      return (await toast.innerText()).trim();
    }).catch(() => null);
    R.agentCompactionMs = Date.now() - appended;
    check('the notification names what the agent\'s summary lost', !!toastText && / lost /.test(toastText), toastText);
    check('the notification came within 5 s of the boundary reaching the file (the server answers in 2; the UI draws after)', R.agentCompactionMs <= 5000, R.agentCompactionMs);
    const restoreButton = toast.locator('.monaco-button', { hasText: 'Restore from before' });
    const recompactButton = toast.locator('.monaco-button', { hasText: 'Re-compact with compactd' });
    check('its two actions', (await restoreButton.count()) === 1 && (await recompactButton.count()) === 1);
    await shot('08-agent-compaction');
    await step('Restore from before (the notification\'s button)', () => restoreButton.click());
    const restored = page.locator('.notification-toast, .notifications-toasts .monaco-list-row', { hasText: /restored the conversation before the agent's compaction/ }).first();
    const restoredText = await step('restored', async () => { await restored.waitFor({ timeout: 30000 }); return (await restored.innerText()).trim(); }).catch(() => null);
    check('"Restore from before" wrote the conversation before it', !!restoredText, restoredText);
    const jsonl = fs.readdirSync(ws).filter((f) => f.endsWith('.jsonl'));
    R.workspaceAfter = jsonl;
    await shot('09-restored-before-agent-compaction');
  }

  if (process.env.E2E_HEALTH_RE) {
    // The server's health under the settings both scopes gave: where it looks for transcripts.
    const text = await step('compactd: Show health', async () => {
      await page.keyboard.press('Control+Shift+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10000 });
      await input.fill('>compactd: Show health');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Show health' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      const lines = page.locator('.monaco-editor .view-lines', { hasText: 'Watched folders' }).first();
      await lines.waitFor({ timeout: 15000 });
      return (await lines.innerText()).replace(/\u00a0/g, ' ');
    });
    R.health = text;
    await shot('10-health');
    check('health page', new RegExp(process.env.E2E_HEALTH_RE).test(text), text);
    if (process.env.E2E_HEALTH_NOT_RE) check('health page: what the settings turned off is not watched', !new RegExp(process.env.E2E_HEALTH_NOT_RE).test(text), text);
  }

  const log = extLog();
  R.extensionLog = log;
  if (log.length > 0) { // only the bundled test extension writes E2E_EXT_LOG
    check('extension saw server start', log.some((e) => e.event === 'started'), log.find((e) => e.event === 'started')?.data);
    check('diagnostics event', log.some((e) => e.event === 'diagnostics' && e.data.count > 0));
  }
  check('progress ($/progress) handled without error', !/workDoneProgress.*(failed|error)/i.test(fs.readFileSync(path.join(tmp, 'code-server.log'), 'utf8')));
  await shot('07-final');
}

let rc = 0;
try {
  await main();
  rc = R.checks.every((c) => c.ok || c.name.includes('optional')) ? 0 : 1;
} catch (e) {
  R.error = String(e?.stack ?? e);
  console.error(R.error);
  rc = 2;
} finally {
  R.total_ms = Date.now() - T0;
  R.ok = rc === 0;
  R.tmp = tmp;
  try { if (browser) await browser.close(); } catch {}
  if (cs) { try { process.kill(-cs.pid, 'SIGTERM'); } catch {} }
  fs.writeFileSync(opt.out, JSON.stringify(R, null, 2));
  // Keep code-server/extension-host logs only when something failed (or E2E_KEEP_TMP=1).
  const keep = rc !== 0 || !!process.env.E2E_KEEP_TMP;
  if (!keep) { await new Promise((r) => setTimeout(r, 500)); try { fs.rmSync(tmp, { recursive: true, force: true }); } catch {} }
  console.log(`code-server-e2e: ${rc === 0 ? 'PASS' : 'FAIL'} in ${R.total_ms} ms (${opt.out}${keep ? `; logs in ${tmp}` : ''})`);
  process.exit(rc);
}
