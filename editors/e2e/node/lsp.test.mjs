// compactd serve over stdio, driven by vscode-jsonrpc + vscode-languageserver-protocol
// (the stack under vscode-languageclient). Run through run.sh, which sets
// COMPACTD_CMD_JSON (the server argv) and points HOME, XDG_*, CLAUDE_CONFIG_DIR,
// CODEX_HOME and COMPACTD_STORE at a temp dir.
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter,
  InitializeRequest, InitializedNotification, DidOpenTextDocumentNotification, HoverRequest,
  CodeActionRequest, CodeLensRequest, ExecuteCommandRequest, ShutdownRequest, ExitNotification,
  PublishDiagnosticsNotification, WorkDoneProgressCreateRequest, ShowMessageNotification, ShowMessageRequest,
} from 'vscode-languageserver-protocol/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const cmd = JSON.parse(process.env.COMPACTD_CMD_JSON || '[]');
if (!cmd.length) throw new Error('set COMPACTD_CMD_JSON to the server argv, e.g. ["bin/compactd","serve"]');
const TIMEOUT = Number(process.env.E2E_TIMEOUT_MS || 10000);

let proc, conn, dir, file, uri, exitCode;
const seen = { gauge: [], diags: [], progress: [], created: [], messages: [], shown: [], asked: [] };
// answer picks the action of a window/showMessageRequest (the first when unset).
let answer = (p) => p.actions?.[0] ?? null;
const waitFor = async (pred, what) => {
  const end = Date.now() + TIMEOUT;
  while (Date.now() < end) { const v = pred(); if (v) return v; await new Promise((r) => setTimeout(r, 10)); }
  throw new Error(`timeout waiting for ${what}`);
};
const gaugeOf = (u) => seen.gauge.filter((g) => g.uri === u && !g.removed);

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compactd-node-e2e-'));
  file = path.join(dir, 'session.jsonl');
  fs.copyFileSync(path.join(here, 'testdata', 'claude-session.jsonl'), file);
  uri = pathToFileURL(file).href;

  proc = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  proc.on('exit', (code) => { exitCode = code; });
  conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  conn.onNotification('compactd/gauge', (p) => seen.gauge.push(p));
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => seen.diags.push(p));
  conn.onNotification(ShowMessageNotification.type, (p) => seen.messages.push(p));
  conn.onRequest(WorkDoneProgressCreateRequest.type, (p) => { seen.created.push(p.token); return null; });
  conn.onRequest('window/showDocument', (p) => { seen.shown.push(p.uri); return { success: true }; });
  conn.onRequest(ShowMessageRequest.type, (p) => { seen.asked.push(p.message); return answer(p); });
  conn.onNotification('$/progress', (p) => seen.progress.push(p));
  conn.onNotification('window/logMessage', () => {});
  conn.listen();

  seen.init = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid, rootUri: pathToFileURL(dir).href,
    workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'ws' }],
    // A small window puts the 4-turn session past the critical point.
    initializationOptions: { compactd: { gauge: { contextWindow: 20000 }, compact: { strategies: ['strip-tool-results'] } } },
    capabilities: { window: { workDoneProgress: true, showDocument: { support: true } }, textDocument: { hover: { contentFormat: ['markdown'] } } },
  });
  await conn.sendNotification(InitializedNotification.type, {});
  await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'jsonl', version: 1, text: '' } });
});

after(async () => {
  if (proc && exitCode === undefined) proc.kill();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('initialize advertises the compactd surface', () => {
  const c = seen.init.capabilities;
  assert.equal(c.hoverProvider, true);
  assert.ok(c.codeLensProvider);
  for (const name of ['compactd.compact', 'compactd.dryRun', 'compactd.compactInPlace', 'compactd.history', 'compactd.restore', 'compactd.diff']) {
    assert.ok(c.executeCommandProvider.commands.includes(name), name);
  }
  assert.equal(seen.init.serverInfo.name, 'compactd');
});

test('gauge notification and diagnostic on open', async () => {
  const g = await waitFor(() => gaugeOf(uri)[0], 'compactd/gauge');
  assert.equal(g.format, 'claude-code');
  assert.equal(g.contextWindow, 20000);
  assert.ok(g.tokens > 0);
  assert.equal(g.level, 'critical');
  assert.match(g.text, /^[\d.]+[kM]? \/ 20k · \d+ %$/);
  const d = await waitFor(() => seen.diags.find((x) => x.uri === uri && x.diagnostics.length), 'diagnostics');
  assert.equal(d.diagnostics[0].source, 'compactd');
  assert.equal(d.diagnostics[0].severity, 1);
  assert.match(d.diagnostics[0].message, /% full/);
});

test('hover shows the turn and its share', async () => {
  const lines = fs.readFileSync(file, 'utf8').split('\n').length - 1;
  const h = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: lines - 1, character: 0 } });
  assert.match(h.contents.value, /turn \d+ of \d+/);
  assert.match(h.contents.value, /Through this turn/);
});

test('code lens per turn and code actions', async () => {
  const lenses = await conn.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
  assert.equal(lenses.length, gaugeOf(uri).at(-1).turns);
  const diags = seen.diags.find((x) => x.uri === uri && x.diagnostics.length).diagnostics;
  const actions = await conn.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range: diags[0].range, context: { diagnostics: diags } });
  const titles = actions.map((a) => a.title);
  assert.deepEqual(titles.slice(0, 4), ['Compact conversation', 'Compact to fit…', 'Dry-run compaction', 'Compact conversation in place']);
  const fit = actions.find((a) => a.title === 'Compact to fit…');
  assert.equal(fit.command.command, 'compactd.compactToFit');
  assert.equal(fit.command.arguments[0].uri, uri);
  seen.actions = actions;
});

test('"Compact conversation" runs with progress begin…end and opens the fork', async () => {
  const action = seen.actions.find((a) => a.title === 'Compact conversation');
  const res = await conn.sendRequest(ExecuteCommandRequest.type, action.command);
  assert.equal(res.command, 'compactd.compact');
  assert.ok(res.open && res.open.startsWith(pathToFileURL(dir).href), `fork beside the transcript: ${res.open}`);
  assert.ok(fs.existsSync(fileURLToPath(res.open)));
  const token = seen.created.at(-1);
  const kinds = seen.progress.filter((p) => p.token === token).map((p) => p.value.kind);
  assert.equal(kinds[0], 'begin');
  assert.equal(kinds.at(-1), 'end');
  assert.ok(seen.messages.some((m) => /compacted/.test(m.message)), 'showMessage');
  assert.ok(seen.shown.includes(res.open), 'window/showDocument for the fork');
});

test('"Continue in another agent…" asks which agent and writes a Codex session', async () => {
  const agents = seen.init.capabilities.experimental?.compactd?.handoffAgents ?? [];
  assert.ok(agents.some((a) => a.name === 'codex' && a.label === 'Codex CLI'), `editor-info's handoffAgents: ${JSON.stringify(agents)}`);
  const action = seen.actions.find((a) => a.title === 'Continue in another agent…');
  assert.equal(action.command.command, 'compactd.handoff');
  answer = (p) => p.actions.find((a) => a.title === 'Codex CLI' || a.title === 'Continue without it') ?? null;
  seen.asked.length = 0;
  const res = await conn.sendRequest(ExecuteCommandRequest.type, action.command);
  assert.equal(res.command, 'compactd.handoff');
  assert.match(seen.asked[0], /which agent/);
  assert.match(seen.asked[1], /MCP server in Codex CLI/);
  const r = res.result;
  assert.equal(r.to, 'codex');
  assert.ok(r.path.startsWith(path.join(process.env.CODEX_HOME, 'sessions')), `in Codex's sessions: ${r.path}`);
  const meta = JSON.parse(fs.readFileSync(r.path, 'utf8').split('\n')[0]);
  assert.equal(meta.type, 'session_meta');
  assert.equal(meta.payload.id, r.session);
  assert.match(r.resume, new RegExp(`codex resume ${r.session}$`));
  assert.ok(seen.shown.includes(pathToFileURL(r.path).href), 'window/showDocument for the new session');
  const history = await conn.sendRequest(ExecuteCommandRequest.type, { command: 'compactd.history', arguments: [{ uri }] });
  assert.ok(history.result.versions.some((v) => v.version === r.version && v.kind === 'handoff' && v.format === 'codex'), 'history lists the handoff');
  answer = (p) => p.actions?.[0] ?? null;
});

test('the gauge moves as the agent appends', async () => {
  const before = gaugeOf(uri).at(-1);
  fs.appendFileSync(file, fs.readFileSync(path.join(here, 'testdata', 'claude-append.jsonl')));
  const t0 = Date.now();
  const g = await waitFor(() => gaugeOf(uri).find((x) => x.turns > before.turns), 'a gauge after the append');
  assert.ok(g.active);
  console.log(`# append → gauge in ${Date.now() - t0} ms`);
});

test('shutdown then exit ends with code 0', async () => {
  await conn.sendRequest(ShutdownRequest.type);
  await conn.sendNotification(ExitNotification.type);
  await waitFor(() => exitCode !== undefined, 'process exit');
  assert.equal(exitCode, 0);
});
