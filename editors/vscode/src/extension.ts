// compactd for VS Code: starts `compactd serve` (vscode-languageclient) for agent transcripts,
// shows the conversation's token gauge in the status bar and wraps the server's commands so
// they work from the palette, the status bar and the server's code actions alike.
import * as path from 'path';
import * as vscode from 'vscode';
import {
  DocumentSelector,
  ExecuteCommandSignature,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import { ContextViewProvider } from './contextView';
import { AgentCompactionNote, Gauge, GaugeStore, gaugeText, insightMarkdown, shortTokens } from './gauges';
import { findSession } from './search';
import { EditorInfo, editorInfo, findServer } from './server';
import { CommandResult, CommandResults, Notifications, Requests, Version } from './wire';

/** The server's commands, with the titles the palette and the quick pick use. */
const commandTitles: Record<string, string> = {
  'compactd.compact': 'Compact conversation',
  'compactd.compactToFit': 'Compact to fit…',
  'compactd.dryRun': 'Dry-run compaction',
  'compactd.compactInPlace': 'Compact conversation in place',
  'compactd.history': 'Show history',
  'compactd.restore': 'Restore version…',
  'compactd.diff': 'Diff versions…',
  'compactd.restoreBeforeAgentCompaction': "Restore from before the agent's compaction",
  'compactd.recompactAgentCompaction': "Re-compact the agent's compaction with compactd",
  'compactd.recall': 'Recall what a placeholder replaced…',
  'compactd.handoff': 'Continue in another agent…',
};

interface CommandArgs {
  uri?: string;
  strategies?: string[];
  keepLast?: number;
  budget?: number;
  version?: number | string;
  from?: number | string;
  to?: number | string;
  /** compactd.recall: the handle a placeholder or summary names ("recall r7f3c2"). */
  handle?: string;
  /** compactd.handoff: the agent to continue in ("codex"); mcp: install compactd's MCP server there. */
  agent?: string;
  mcp?: boolean;
}

/** The handle of the "recall r…" mark under (or nearest before) the cursor, if the line has one. */
function handleAtCursor(info: EditorInfo): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const line = editor.document.lineAt(editor.selection.active.line).text;
  const at = editor.selection.active.character;
  let best: string | undefined;
  for (const m of line.matchAll(new RegExp(info.recallMark, 'g'))) {
    const start = m.index ?? 0;
    if (start <= at || best === undefined) best = m[1];
    if (start <= at && at <= start + m[0].length) return m[1];
  }
  return best;
}

let client: LanguageClient | undefined;
/** The agent compactions announced in this window, oldest first (tests read them). */
const agentCompactions: AgentCompactionNote[] = [];

const versionId = (v: Version) => v.version;
const versionStrategies = (v: Version) => (v.pipeline ?? []).join(', ');

/**
 * A command's answer, typed by the command (wire.ts, generated from the server's types): its
 * result under "result", its message and the URI of what it opened beside it.
 */
export function commandResult<K extends keyof CommandResults>(command: K, r: unknown): CommandResult<CommandResults[K]> | undefined {
  if (!r || typeof r !== 'object') return undefined;
  const o = r as CommandResult<unknown>;
  if (o.command !== command || !o.result || typeof o.result !== 'object') return undefined;
  return o as CommandResult<CommandResults[K]>;
}

const isCommand = (c: string): c is keyof CommandResults => c in commandTitles && c !== 'compactd.compactToFit';

/**
 * The `compactd` settings section as the server reads it: the camelCase mirror of .compactd.toml.
 * The server rejects unknown keys, so nothing else goes in.
 */
export function serverSettings(): Record<string, unknown> {
  return protocolSettings();
}

/**
 * A setting's value where the user set it (folder, workspace or user settings), else undefined: the
 * extension's defaults are not sent, so a `.compactd.toml` decides what the user did not set here.
 */
function explicit<T>(c: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = c.inspect<T>(key);
  return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
}

function protocolSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('compactd');
  const get = <T>(key: string) => explicit<T>(c, key);
  const strategies = get<string[]>('compact.strategies');
  return {
    gauge: {
      warn: get<number>('gauge.warn'),
      critical: get<number>('gauge.critical'),
      model: get<string>('gauge.model') || undefined,
      contextWindow: get<number>('gauge.contextWindow') || undefined,
    },
    compact: {
      strategies: strategies?.length ? strategies : undefined,
      keepLast: get<number>('compact.keepLast'),
      turns: get<number>('compact.turns') || undefined,
    },
    // Every compactd.watch key, set in the object or on its own (compactd.watch.<key>, as
    // earlier versions declared them): the agents' switches are the server's, which validates
    // them (compactd editor-info lists them); the manifest names no agent.
    watch: Object.fromEntries(Object.keys(c.get<Record<string, unknown>>('watch') ?? {}).map((k) => [k, get<unknown>(`watch.${k}`)])),
    log: { level: get<string>('log.level') },
    store: { path: get<string>('store.path') || undefined },
  };
}

/** Sends one of the server's own requests, typed by what it takes and answers (wire.ts). */
function request<M extends keyof Requests>(c: LanguageClient, method: M, params: Requests[M]['params']): Promise<Requests[M]['result']> {
  return c.sendRequest<Requests[M]['result']>(method, params);
}

/** Handles one of the server's own notifications, typed by its params (wire.ts). */
function onNotification<M extends keyof Notifications>(c: LanguageClient, method: M, handler: (params: Notifications[M]) => void | Promise<void>): vscode.Disposable {
  return c.onNotification(method, handler);
}

/** The server's health as a Markdown page: one line per folder it watches (or waits for). */
function healthMarkdown(h: Requests['compactd/health']['result']): string {
  const lines = [`# compactd ${h.version}`, ''];
  lines.push(h.store.error ? `Store: ${h.store.path} — not usable: ${h.store.error}` : `Store: ${h.store.path || '(none)'}${h.store.writable ? '' : ' (read-only)'}`);
  lines.push('', `Transcripts: ${h.transcripts}${h.scanDone ? '' : ' (scan under way)'}`, '', '## Watched folders', '');
  for (const w of h.watching ?? []) {
    const state = !w.exists ? 'not there yet (watched for)' : w.polled ? 'polled (past the watch limit)' : w.watched ? 'watched' : 'not watched';
    lines.push(`- ${w.kind}: ${w.dir} — ${state}`);
  }
  if (!h.watching?.length) lines.push('- none: open a folder, or turn on compactd.watch');
  return lines.join('\n') + '\n';
}

/** Transcript files sent to the server: the server's patterns, and compactd.documentGlobs (never settings.json). */
function documentSelector(info: EditorInfo): DocumentSelector {
  const extra = vscode.workspace.getConfiguration('compactd').get<string[]>('documentGlobs') ?? [];
  return [...(info.documentPatterns ?? []), ...extra].map((pattern) => ({ scheme: 'file', pattern }));
}

function fmtTokens(n: number | undefined): string {
  if (n === undefined || n === null) return '?';
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 100000 ? 0 : 1)}k` : String(n);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const store = new GaugeStore();
  const output = vscode.window.createOutputChannel('compactd');
  const item = vscode.window.createStatusBarItem('compactd.gauge', vscode.StatusBarAlignment.Right, 100);
  item.name = 'compactd gauge';
  item.command = 'compactd.showActions';
  context.subscriptions.push(output, item);
  // Documents the server opened with window/showDocument: not opened a second time.
  const shown = new Set<string>();

  const render = () => {
    const g = store.pick(vscode.window.activeTextEditor?.document.uri.toString());
    if (!g) {
      item.text = '$(dashboard) compactd';
      item.tooltip = 'compactd: no conversation yet — open an agent transcript';
      item.backgroundColor = undefined;
      item.show();
      return;
    }
    const text = gaugeText(g);
    // The agent's own compaction point beside the gauge: "· auto 167k" (or "auto off").
    const m = g.autoCompact;
    const mark = !m ? '' : m.disabled || !m.at ? ' · auto off' : ` · auto ${shortTokens(m.at)}`;
    item.text = `$(dashboard) ${text}${mark}`;
    item.accessibilityInformation = { label: `Context window: ${text}` };
    item.backgroundColor =
      g.level === 'critical'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : g.level === 'warn'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    const md = new vscode.MarkdownString(undefined, true);
    const name = path.basename(vscode.Uri.parse(g.uri).fsPath);
    md.appendMarkdown(`**compactd** — ${name}${g.active ? ' (active)' : ''}\n\n`);
    md.appendMarkdown(`- Model: ${g.model || 'unknown'} · window ${fmtTokens(g.contextWindow)} tokens\n`);
    md.appendMarkdown(`- Used: ${fmtTokens(g.tokens)} tokens (${Math.round((g.ratio ?? 0) * 100)} %, ${g.level ?? 'ok'})\n`);
    md.appendMarkdown(`- Figure from: ${g.source === 'estimate' ? 'estimate only' : 'reported usage + estimate of what followed'}\n`);
    const savings = Object.entries(g.savings ?? {});
    if (savings.length > 0) {
      md.appendMarkdown(`- Compaction would save: ${savings.map(([k, v]) => `${k} ${fmtTokens(v)}`).join(', ')}\n`);
    }
    md.appendMarkdown(insightMarkdown(g) + '\n');
    md.appendMarkdown('\nClick for Compact, Dry run, History, Restore; the Context view draws the window.');
    item.tooltip = md;
    item.show();
  };
  render();

  /** The conversation a command acts on: the active editor's when it is a transcript, else the active one. */
  const currentUri = (): string | undefined => {
    const doc = vscode.window.activeTextEditor?.document;
    if (doc && (store.get(doc.uri.toString()) || vscode.languages.match(documentSelector(info) as vscode.DocumentSelector, doc) > 0)) {
      return doc.uri.toString();
    }
    return store.pick(undefined)?.uri;
  };

  const openPath = async (file: string | undefined, preview: boolean) => {
    if (!file || shown.has(path.resolve(file))) return;
    const uri = vscode.Uri.file(file);
    shown.add(path.resolve(file));
    if (preview && file.endsWith('.md')) await vscode.commands.executeCommand('markdown.showPreview', uri);
    else await vscode.window.showTextDocument(uri, { preview: false });
  };

  let binary;
  let info: EditorInfo;
  try {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    binary = findServer(vscode.workspace.getConfiguration('compactd').get<string>('path') ?? '', context.extensionPath, folder);
    info = await editorInfo(binary.path);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    item.text = '$(error) compactd: no server';
    item.tooltip = msg;
    item.command = 'compactd.showOutput';
    output.appendLine(msg);
    for (const id of [...Object.keys(commandTitles), 'compactd.showActions', 'compactd.findSession', 'compactd.restartServer', 'compactd.showContext', 'compactd.refreshContext']) {
      context.subscriptions.push(vscode.commands.registerCommand(id, () => vscode.window.showErrorMessage(`compactd: ${msg}`)));
    }
    context.subscriptions.push(vscode.commands.registerCommand('compactd.showOutput', () => output.show()));
    void vscode.window.showErrorMessage(`compactd: ${msg}`, 'Open Settings').then((a) => {
      if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'compactd.path');
    });
    return;
  }
  output.appendLine(`compactd: using ${binary.path} (${binary.from})`);

  const pickVersion = async (uri: string, next: ExecuteCommandSignature, placeHolder: string): Promise<Version | undefined> => {
    const h = commandResult('compactd.history', await next('compactd.history', [{ uri }]));
    const versions = h?.result.versions ?? [];
    if (versions.length === 0) {
      void vscode.window.showInformationMessage('compactd: this conversation has no versions yet.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      versions.map((v) => ({
        label: `Version ${versionId(v)}`,
        description: `${fmtTokens(v.tokensBefore)} → ${fmtTokens(v.tokensAfter)} tokens · ${versionStrategies(v)}`,
        detail: `${v.created ?? ''}${v.parent !== undefined && v.parent !== null ? ` · from ${v.parent}` : ''}${v.forkPath ? ` · ${v.forkPath}` : ''}`,
        version: v,
      })),
      { placeHolder },
    );
    return picked?.version;
  };

  // Every compactd.* command, from the palette (no arguments), the status bar or a code action
  // (one argument object), goes through here: fill in the conversation, ask what is missing,
  // show progress, and open what the result names.
  const executeCommand = async (command: string, args: unknown[], next: ExecuteCommandSignature): Promise<unknown> => {
    const first = args?.[0];
    if (command === 'compactd.search') {
      // Takes no conversation: "Find a session…" asks it directly.
      return next(command, args);
    }
    if (first !== undefined && (typeof first !== 'object' || first === null || Array.isArray(first))) {
      // Not the one-object form this extension knows: the server's own business.
      return next(command, args);
    }
    const arg: CommandArgs = { ...((first as CommandArgs | undefined) ?? {}) };
    arg.uri = arg.uri ?? currentUri();
    if (!arg.uri) {
      void vscode.window.showWarningMessage('compactd: open an agent transcript first.');
      return undefined;
    }
    const title = commandTitles[command] ?? command;
    try {
      if (command === 'compactd.compactInPlace') {
        const ok = await vscode.window.showWarningMessage(
          `Compact ${path.basename(vscode.Uri.parse(arg.uri).fsPath)} in place? The current content is kept in the store.`,
          { modal: true },
          'Compact in place',
        );
        if (!ok) return undefined;
      }
      if (command === 'compactd.restore' && arg.version === undefined) {
        const v = await pickVersion(arg.uri, next, 'Version to restore');
        if (!v) return undefined;
        arg.version = versionId(v);
      }
      if (command === 'compactd.recall' && !arg.handle) {
        arg.handle = handleAtCursor(info) ?? (await vscode.window.showInputBox({
          prompt: 'The recall handle a placeholder or summary names',
          placeHolder: 'r7f3c2',
          validateInput: (v) => (new RegExp(`^(?:${info.recallHandle})$`).test(v.trim()) ? undefined : `a handle is ${info.recallSyntax}`),
        }))?.trim();
        if (!arg.handle) return undefined;
      }
      if (command === 'compactd.handoff' && !arg.agent && info.handoffAgents?.length) {
        // The agents are the server's (editor-info); without them the server asks itself.
        const picked = await vscode.window.showQuickPick(
          info.handoffAgents.map((a) => ({ label: a.label, description: a.name, name: a.name })),
          { placeHolder: 'Continue this conversation in…' },
        );
        if (!picked) return undefined;
        arg.agent = picked.name;
      }
      if (command === 'compactd.diff' && arg.from === undefined) {
        const v = await pickVersion(arg.uri, next, 'Version to compare with its parent');
        if (!v) return undefined;
        arg.from = v.parent ?? undefined;
        arg.to = versionId(v);
      }
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `compactd: ${title}` },
        () => next(command, [arg]),
      );
      await showResult(command, arg.uri, result, next);
      return result;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      void vscode.window.showErrorMessage(`compactd: ${title} failed: ${msg}`);
      return undefined;
    }
  };

  const showResult = async (command: string, uri: string, answer: unknown, next: ExecuteCommandSignature) => {
    if (!isCommand(command)) return;
    switch (command) {
      // The result names are the server's (wire.ts; lsp/testdata/commands/*.json).
      case 'compactd.compact':
      case 'compactd.recompactAgentCompaction':
        await openPath(commandResult(command, answer)?.result.forkPath, false);
        break;
      case 'compactd.restore':
      case 'compactd.restoreBeforeAgentCompaction':
        await openPath(commandResult(command, answer)?.result.path, false);
        break;
      case 'compactd.dryRun':
        await openPath(commandResult(command, answer)?.result.reportPath, true);
        break;
      case 'compactd.recall': {
        const open = commandResult(command, answer)?.open;
        await openPath(open ? vscode.Uri.parse(open).fsPath : undefined, true);
        break;
      }
      case 'compactd.handoff': {
        // The new session, and the command that resumes it.
        const r = commandResult(command, answer)?.result;
        await openPath(r?.path, false);
        if (!r?.resume) break;
        const run = 'Run in terminal';
        const copy = 'Copy command';
        const choice = await vscode.window.showInformationMessage(`compactd: continue with ${r.resume}`, run, copy);
        if (choice === run) {
          const terminal = vscode.window.createTerminal({ name: `compactd: ${r.to}` });
          terminal.show();
          terminal.sendText(r.resume);
        } else if (choice === copy) {
          await vscode.env.clipboard.writeText(r.resume);
        }
        break;
      }
      case 'compactd.history': {
        const r = commandResult(command, answer)?.result;
        const versions = r?.versions ?? [];
        if (versions.length === 0) {
          void vscode.window.showInformationMessage('compactd: this conversation has no versions yet.');
          return;
        }
        // The agent's own compactions (aN): their figures and what each summary lost.
        const losses = new Map((r?.agentCompactions ?? []).map((l) => [l.compaction, l]));
        const picked = await vscode.window.showQuickPick(
          versions.map((v) => {
            const loss = losses.get(versionId(v));
            return {
              label: `Version ${versionId(v)}`,
              description: loss
                ? `${fmtTokens(loss.tokensBefore)} → ${fmtTokens(loss.tokensAfter)} tokens · the agent's own compaction`
                : `${fmtTokens(v.tokensBefore)} → ${fmtTokens(v.tokensAfter)} tokens · ${versionStrategies(v)}`,
              detail: loss ? loss.summary : `${v.created ?? ''}${v.forkPath ? ` · ${v.forkPath}` : ''}`,
              v,
            };
          }),
          { placeHolder: 'Versions of this conversation: pick one to open, restore or diff' },
        );
        if (!picked) return;
        const what = await vscode.window.showQuickPick(['Open fork', 'Restore', 'Diff with parent'], { placeHolder: `Version ${versionId(picked.v)}` });
        if (what === 'Open fork') await openPath(picked.v.forkPath, false);
        else if (what === 'Restore') await executeCommand('compactd.restore', [{ uri, version: versionId(picked.v) }], next);
        else if (what === 'Diff with parent') await executeCommand('compactd.diff', [{ uri, from: picked.v.parent ?? undefined, to: versionId(picked.v) }], next);
        break;
      }
    }
  };

  const serverOptions: ServerOptions = { command: binary.path, args: ['serve'], transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(info),
    initializationOptions: serverSettings(),
    outputChannel: output,
    middleware: {
      executeCommand,
      window: {
        // The dry-run report (Markdown) opens as a preview; other documents as usual.
        showDocument: async (params, next) => {
          const uri = vscode.Uri.parse(params.uri);
          if (!params.external && uri.scheme === 'file') {
            shown.add(path.resolve(uri.fsPath));
            if (uri.fsPath.endsWith('.md')) {
              await vscode.commands.executeCommand('markdown.showPreview', uri);
              return { success: true };
            }
          }
          const r = await next(params, new vscode.CancellationTokenSource().token);
          return r instanceof Error ? { success: false } : r;
        },
      },
    },
  };
  client = new LanguageClient('compactd', 'compactd', serverOptions, clientOptions);
  // This extension shows compactd/agentCompaction itself (with its buttons): the server
  // then sends no window/showMessageRequest of its own for it.
  client.registerFeature({
    fillClientCapabilities(caps) {
      caps.experimental = { ...(caps.experimental as object), compactd: { agentCompaction: true } };
    },
    initialize() {},
    getState: () => ({ kind: 'static' }),
    clear() {},
  });

  const contextView = new ContextViewProvider(
    (uri, dryRun) => {
      if (!client?.isRunning()) return Promise.reject(new Error('the server is not running'));
      return request(client, 'compactd/context', { uri, dryRun });
    },
    () => currentUri(),
    (uri, line) => {
      void vscode.window.showTextDocument(vscode.Uri.parse(uri), { selection: new vscode.Range(line, 0, line, 0), preview: false });
    },
    (msg) => output.appendLine(msg),
  );

  context.subscriptions.push(
    onNotification(client, 'compactd/gauge', (g) => {
      store.update(g);
      render();
      contextView.onGauge(g);
    }),
    // The agent compacted a watched conversation on its own: what it lost, and the two actions.
    onNotification(client, 'compactd/agentCompaction', async (note) => {
      agentCompactions.push(note);
      output.appendLine(`compactd: ${note.message}`);
      contextView.onGauge({ uri: note.uri });
      const show = note.health?.loop ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      const actions = note.actions ?? [];
      const picked = await show(`compactd: ${note.message}`, ...actions.map((a) => a.title));
      const action = actions.find((a) => a.title === picked);
      if (action) await vscode.commands.executeCommand(action.command, ...(action.arguments ?? []));
    }),
    vscode.window.onDidChangeActiveTextEditor(() => {
      render();
      contextView.onEditor();
    }),
    vscode.window.registerWebviewViewProvider(ContextViewProvider.viewId, contextView),
    vscode.commands.registerCommand('compactd.showContext', async () => {
      await vscode.commands.executeCommand(`${ContextViewProvider.viewId}.focus`);
      await contextView.refresh(true);
    }),
    vscode.commands.registerCommand('compactd.refreshContext', () => contextView.refresh(true)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('compactd') && client?.isRunning()) {
        void client.sendNotification('workspace/didChangeConfiguration', { settings: { compactd: serverSettings() } });
      }
    }),
    vscode.commands.registerCommand('compactd.showActions', async () => {
      const g = store.pick(vscode.window.activeTextEditor?.document.uri.toString());
      const picked = await vscode.window.showQuickPick(
        [
          { label: '$(fold) Compact', description: 'into a new fork beside the transcript', id: 'compactd.compact' },
          { label: '$(preview) Dry run', description: 'report only, nothing written', id: 'compactd.dryRun' },
          { label: '$(warning) Compact in place', description: 'replace the transcript (kept in the store)', id: 'compactd.compactInPlace' },
          { label: '$(history) History', description: 'versions of this conversation', id: 'compactd.history' },
          { label: '$(discard) Restore…', description: 'bring back a version', id: 'compactd.restore' },
          { label: '$(arrow-swap) Continue in…', description: 'another agent, compacted to fit its window', id: 'compactd.handoff' },
          { label: '$(search) Find a session…', description: 'of any agent, by what was said in it', id: 'compactd.findSession' },
        ],
        { placeHolder: g ? `${path.basename(vscode.Uri.parse(g.uri).fsPath)} — ${gaugeText(g)}` : 'compactd' },
      );
      if (picked?.id === 'compactd.findSession') await vscode.commands.executeCommand(picked.id);
      else if (picked) await vscode.commands.executeCommand(picked.id, g ? { uri: g.uri } : {});
    }),
    // "Find a session…": every agent's past sessions by what was said in them; the one picked
    // opens, or continues in another agent.
    vscode.commands.registerCommand('compactd.findSession', (query?: string) => {
      if (!client?.isRunning()) {
        void vscode.window.showWarningMessage('compactd: the server is not running.');
        return undefined;
      }
      return findSession(client, info, (uri, agent) => vscode.commands.executeCommand('compactd.handoff', { uri, agent }), typeof query === 'string' ? query : undefined);
    }),
    // "Compact to fit…" (a code action, the palette): ask for the budget, suggesting the dry
    // run's knee when the server knows it, and compact to fit it.
    vscode.commands.registerCommand('compactd.compactToFit', async (arg?: CommandArgs) => {
      const uri = arg?.uri ?? currentUri();
      if (!uri) {
        void vscode.window.showWarningMessage('compactd: open an agent transcript first.');
        return undefined;
      }
      const input = await vscode.window.showInputBox({
        prompt: 'Fit the conversation in how many tokens?',
        value: arg?.budget ? String(arg.budget) : '',
        validateInput: (v) => (/^[1-9][0-9]*$/.test(v.trim()) ? undefined : 'a positive number of tokens'),
      });
      if (!input) return undefined;
      return vscode.commands.executeCommand('compactd.compact', { ...arg, uri, budget: Number(input.trim()) });
    }),
    vscode.commands.registerCommand('compactd.restartServer', () => client?.restart()),
    vscode.commands.registerCommand('compactd.showOutput', () => output.show()),
    // What Neovim's :checkhealth compactd shows: the server, its store, and where it looks for
    // transcripts under the current settings.
    vscode.commands.registerCommand('compactd.showHealth', async () => {
      if (!client?.isRunning()) {
        void vscode.window.showWarningMessage('compactd: the server is not running (see Output › compactd).');
        return;
      }
      const h = await request(client, 'compactd/health', {});
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: healthMarkdown(h) });
      await vscode.window.showTextDocument(doc, { preview: false });
    }),
  );

  try {
    await client.start();
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    output.appendLine(`compactd: the server did not start: ${msg}`);
    item.text = '$(error) compactd: server failed';
    item.tooltip = `The server did not start: ${msg} (see Output › compactd)`;
    return;
  }
  // Conversations the server already watches, not only open editors. Older servers may
  // lack the request: the notifications alone still fill the gauge.
  try {
    const all = await request(client, 'compactd/gauges', {});
    for (const g of all ?? []) store.update(g);
    render();
  } catch (e) {
    output.appendLine(`compactd: compactd/gauges: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
}
