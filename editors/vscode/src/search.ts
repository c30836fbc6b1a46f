// "Find a session…": a quick pick whose items are the server's compactd.search hits for what the
// user types (asked again as they type, the previous request cancelled), each with its agent,
// project, date and the text around the match; picking one opens its transcript at the match or
// continues it in another agent (compactd.handoff).
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { EditorInfo } from './server';
import { CommandResult, Found, Hit } from './wire';

/** How long typing must pause before the server is asked. */
const typingPause = 150;

interface HitItem extends vscode.QuickPickItem {
  hit: Hit;
}

/** What a hit's match is in: a prompt, an answer, a tool call or its result. */
export function hitLabel(h: Hit): string {
  if (h.part === 'tool_call') return `call ${h.tool ?? ''}`.trim();
  if (h.part === 'tool_result') return h.tool ? `result of ${h.tool}` : 'tool result';
  if (h.part === 'reasoning') return 'reasoning';
  if (h.role === 'user') return 'prompt';
  if (h.role === 'assistant') return 'answer';
  return h.role;
}

/** A hit as a quick pick item. */
export function hitItem(h: Hit): HitItem {
  const when = h.date ? new Date(h.date).toLocaleString() : '';
  const where = h.version ? `stored version ${h.version}` : h.project ?? '';
  const file = h.path ? path.basename(h.path) : '';
  return {
    label: `${h.agent ?? h.format}: ${h.title || h.session || file}`,
    description: [where, when, file].filter((s) => s).join(' · '),
    detail: `${hitLabel(h)}: ${h.snippet}`,
    // The server has chosen and ranked them: the quick pick must not filter them again.
    alwaysShow: true,
    hit: h,
  };
}

/** Asks the server for the sessions that say query (cancelled with token). */
export async function searchSessions(client: LanguageClient, query: string, token?: vscode.CancellationToken): Promise<Found | undefined> {
  const r = await client.sendRequest<CommandResult<Found> | null>(
    'workspace/executeCommand',
    { command: 'compactd.search', arguments: [{ query, limit: 30 }] },
    token,
  );
  return r?.result;
}

/**
 * Runs "Find a session…": the quick pick, then what to do with the hit picked. handoff runs
 * compactd.handoff on a transcript (through the extension's own command, which asks for the agent
 * when it is not given).
 */
export async function findSession(
  client: LanguageClient,
  info: EditorInfo,
  handoff: (uri: string, agent: string) => Thenable<unknown>,
  initial?: string,
): Promise<Hit | undefined> {
  const pick = vscode.window.createQuickPick<HitItem>();
  pick.title = 'compactd: Find a session';
  pick.placeholder = 'Words said in a past session of any agent ("a quoted phrase", word*)';
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  let pending: vscode.CancellationTokenSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ask = (query: string) => {
    pending?.cancel();
    if (timer) clearTimeout(timer);
    if (!query.trim()) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    const source = new vscode.CancellationTokenSource();
    pending = source;
    timer = setTimeout(async () => {
      pick.busy = true;
      try {
        const found = await searchSessions(client, query, source.token);
        if (source.token.isCancellationRequested) return;
        pick.items = (found?.hits ?? []).map(hitItem);
        pick.placeholder = found?.hits?.length ? pick.placeholder : `No session says ${query}`;
      } catch (e) {
        if (!source.token.isCancellationRequested) {
          pick.items = [];
          pick.placeholder = `compactd: ${e instanceof Error ? e.message : String(e)}`;
        }
      } finally {
        if (pending === source) pick.busy = false;
      }
    }, typingPause);
  };
  const chosen = await new Promise<Hit | undefined>((resolve) => {
    pick.onDidChangeValue(ask);
    pick.onDidAccept(() => {
      resolve(pick.selectedItems[0]?.hit);
      pick.hide();
    });
    pick.onDidHide(() => resolve(undefined));
    pick.show();
    if (initial) {
      pick.value = initial;
      ask(initial);
    }
  });
  pending?.cancel();
  pick.dispose();
  if (!chosen) return undefined;
  await hitAction(chosen, info, handoff);
  return chosen;
}

/** Opens the hit's transcript at its match, or continues it in another agent. */
export async function hitAction(h: Hit, info: EditorInfo, handoff: (uri: string, agent: string) => Thenable<unknown>): Promise<void> {
  if (!h.path) {
    void vscode.window.showInformationMessage(
      `compactd: this is stored version ${h.version} of ${h.conversation}, whose file is gone: restore it with compactd restore.`,
    );
    return;
  }
  const open = { label: '$(go-to-file) Open the transcript', agent: '' };
  const agents = (info.handoffAgents ?? []).map((a) => ({ label: `$(arrow-swap) Continue in ${a.label}`, agent: a.name }));
  const what = await vscode.window.showQuickPick([open, ...agents], { placeHolder: h.title || h.path });
  if (!what) return;
  if (!what.agent) {
    await openHit(h);
    return;
  }
  await handoff(vscode.Uri.file(h.path).toString(), what.agent);
}

/** Shows the hit's transcript with the match's line selected. */
export async function openHit(h: Hit): Promise<vscode.TextEditor | undefined> {
  if (!h.path) return undefined;
  const line = Math.max((h.line ?? 1) - 1, 0);
  return vscode.window.showTextDocument(vscode.Uri.file(h.path), { selection: new vscode.Range(line, 0, line, 0), preview: false });
}
