// The real-agent suite's LSP client: starts `compactd serve` over stdio with the
// Node client stack of VS Code (vscode-jsonrpc + vscode-languageserver-protocol),
// initializes it on a workspace folder and reports what the server sends.
//
// Usage: node client.mjs   with
//   COMPACTD_CMD_JSON   the server argv, e.g. ["/abs/bin/compactd","serve","--log-file","/tmp/x.log"]
//   COMPACTD_WORKSPACE  the workspace folder (absolute)
//   COMPACTD_INIT_JSON  initializationOptions (JSON), optional
// The server inherits this process's environment (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, …).
// Output, one JSON object per line on stdout, written the moment it happens:
//   {"event":"ready","capabilities":[…]}            after initialize/initialized
//   {"event":"notification","method":M,"params":P,"t":ms}   every server notification
//   {"event":"response","id":N,"result":R}           answer to a request read from stdin
//   {"event":"exit","code":C}                        the server exited
// Input, one JSON object per line on stdin: {"id":N,"method":M,"params":P} sends a
// request; end of input shuts the server down (shutdown, exit) and ends this process.
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter,
  InitializeRequest, InitializedNotification, ShutdownRequest, ExitNotification,
  WorkDoneProgressCreateRequest,
} from 'vscode-languageserver-protocol/node.js';

const cmd = JSON.parse(process.env.COMPACTD_CMD_JSON || '[]');
const workspace = process.env.COMPACTD_WORKSPACE;
if (!cmd.length || !workspace) {
  process.stderr.write('client.mjs: set COMPACTD_CMD_JSON (server argv) and COMPACTD_WORKSPACE (folder)\n');
  process.exit(64);
}
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
const now = () => performance.timeOrigin + performance.now();

const proc = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
let exited = false;
proc.on('exit', (code) => { exited = true; out({ event: 'exit', code }); process.exit(code === 0 ? 0 : 1); });
const conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
conn.onNotification((method, params) => out({ event: 'notification', method, params, t: now() }));
conn.onRequest(WorkDoneProgressCreateRequest.type, () => null);
conn.onRequest('window/showDocument', () => ({ success: true }));
conn.onRequest('workspace/configuration', (p) => p.items.map(() => null));
conn.onRequest('client/registerCapability', () => null);
// The suite shows compactd/agentCompaction itself (it prints every
// notification), as the editors do; a message request gets no answer.
conn.onRequest('window/showMessageRequest', () => null);
conn.listen();

const folder = pathToFileURL(workspace).href;
const init = await conn.sendRequest(InitializeRequest.type, {
  processId: process.pid, rootUri: folder,
  workspaceFolders: [{ uri: folder, name: 'workspace' }],
  initializationOptions: JSON.parse(process.env.COMPACTD_INIT_JSON || '{}'),
  capabilities: {
    window: { workDoneProgress: true, showDocument: { support: true } }, workspace: { workspaceFolders: true },
    experimental: { compactd: { agentCompaction: true } },
  },
});
await conn.sendNotification(InitializedNotification.type, {});
out({ event: 'ready', capabilities: Object.keys(init.capabilities) });

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', async (line) => {
  if (!line.trim()) return;
  const req = JSON.parse(line);
  try {
    out({ event: 'response', id: req.id, result: await conn.sendRequest(req.method, req.params) });
  } catch (err) {
    out({ event: 'response', id: req.id, error: String(err && err.message || err) });
  }
});
rl.on('close', async () => {
  if (exited) return;
  try { await conn.sendRequest(ShutdownRequest.type); await conn.sendNotification(ExitNotification.type); } catch { proc.kill(); }
});
