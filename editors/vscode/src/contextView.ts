// The "Context" view: the conversation's window as one stacked bar by category, the tokens of
// every turn as bars with what the dry run would remove highlighted, and the costs. Its data is
// the server's compactd/context request; the page (media below) only draws what it is sent.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { Gauge } from './gauges';
import { ContextResult } from './wire';

/** The compactd/context answer (wire.ts, generated from the server's Go types). */
export type ContextData = ContextResult;

type Request = (uri: string, dryRun: boolean) => Promise<ContextData | null>;

export class ContextViewProvider implements vscode.WebviewViewProvider {
  static readonly viewId = 'compactd.context';
  private view: vscode.WebviewView | undefined;
  private uri: string | undefined;
  private last: ContextData | undefined;
  private dryTimer: NodeJS.Timeout | undefined;
  private seq = 0;

  constructor(
    private readonly request: Request,
    private readonly current: () => string | undefined,
    private readonly reveal: (uri: string, line: number) => void,
    private readonly log: (msg: string) => void,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true };
    view.webview.html = page(crypto.randomBytes(16).toString('base64'));
    view.webview.onDidReceiveMessage((m: { type: string; line?: number }) => {
      if (m.type === 'ready') void this.refresh(true);
      else if (m.type === 'refresh') void this.refresh(true);
      else if (m.type === 'reveal' && this.uri && typeof m.line === 'number') this.reveal(this.uri, m.line);
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) void this.refresh(true);
    });
  }

  /** A new gauge: redraw at once, and the dry run when the conversation has been quiet a while. */
  onGauge(g: Pick<Gauge, 'uri'>): void {
    if (!this.view?.visible) return;
    const uri = this.current();
    if (!uri || g.uri !== uri) {
      if (uri !== this.uri) void this.refresh(true);
      return;
    }
    void this.refresh(false);
    if (this.dryTimer) clearTimeout(this.dryTimer);
    this.dryTimer = setTimeout(() => void this.refresh(true), 2000);
  }

  /** The editor changed: show its conversation. */
  onEditor(): void {
    if (this.view?.visible && this.current() !== this.uri) void this.refresh(true);
  }

  async refresh(dryRun: boolean): Promise<void> {
    const view = this.view;
    if (!view) return;
    const uri = this.current();
    this.uri = uri;
    if (!uri) {
      void view.webview.postMessage({ type: 'empty' });
      return;
    }
    const seq = ++this.seq;
    if (dryRun) void view.webview.postMessage({ type: 'pending' });
    try {
      const data = await this.request(uri, dryRun);
      if (!data) throw new Error('the server sent no answer');
      if (seq !== this.seq && !dryRun) return; // a newer answer is on its way
      // Keep the last dry run's highlights while a quick redraw has none.
      if (!dryRun && this.last?.dryRun && this.last.gauge.uri === data.gauge.uri) {
        data.dryRun = this.last.dryRun;
        data.turns?.forEach((t, i) => (t.removed = this.last?.turns?.[i]?.removed ?? 0));
      }
      this.last = data;
      void view.webview.postMessage({ type: 'data', data });
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.log(`compactd/context: ${msg}`);
      void view.webview.postMessage({ type: 'error', message: msg });
    }
  }
}

/** The webview page: styles follow the theme; the script draws what the extension posts. */
export function page(nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 10px 10px; }
h2 { font-size: 1.05em; margin: 10px 0 4px; }
h3 { font-size: 0.95em; margin: 14px 0 4px; font-weight: 600; }
.muted { color: var(--vscode-descriptionForeground); }
.level-warn { color: var(--vscode-charts-yellow); } .level-critical { color: var(--vscode-charts-red); }
.stack { display: flex; height: 18px; width: 100%; border: 1px solid var(--vscode-panel-border, #8884); border-radius: 3px; overflow: hidden; margin: 6px 0; background: repeating-linear-gradient(45deg, transparent 0 4px, #8881 4px 8px); }
.stack > div { height: 100%; min-width: 1px; flex: none; }
.legend { display: grid; grid-template-columns: 12px 1fr auto auto; gap: 2px 6px; align-items: center; font-size: 0.92em; }
.sw { width: 10px; height: 10px; border-radius: 2px; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { margin: 6px 0; }
.why { border-left: 3px solid var(--vscode-charts-orange); padding-left: 6px; }
svg { width: 100%; height: 120px; display: block; }
svg rect.kept { fill: var(--vscode-charts-blue); } svg rect.removed { fill: var(--vscode-charts-red); opacity: 0.85; }
svg rect:hover { opacity: 0.7; cursor: pointer; }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: 0; padding: 3px 8px; cursor: pointer; }
ul { margin: 2px 0; padding-left: 16px; }
</style></head>
<body>
<div id="root" class="muted">Open an agent transcript to see what fills its context window.</div>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const colors = { outside: 'var(--vscode-charts-purple)', system: 'var(--vscode-charts-foreground)', injected: 'var(--vscode-charts-orange)',
  summaries: 'var(--vscode-charts-green)', user: 'var(--vscode-charts-yellow)', assistant: 'var(--vscode-charts-blue)',
  reasoning: 'var(--vscode-terminal-ansiCyan)', 'tool-calls': 'var(--vscode-terminal-ansiMagenta)', 'tool-results': 'var(--vscode-charts-red)',
  media: 'var(--vscode-terminal-ansiGreen)' };
const fmt = (n) => Math.round(n || 0).toLocaleString('en-US');
const short = (n) => n >= 1e6 ? (n / 1e6).toFixed(2).replace(/\\.?0+$/, '') + 'M' : n >= 1e4 ? Math.round(n / 1e3) + 'k' : n >= 1e3 ? (n / 1e3).toFixed(1).replace(/\\.0$/, '') + 'k' : String(Math.round(n || 0));
const pct = (n, w) => (100 * n / (w || 1)).toFixed(1) + ' %';
const dollars = (v) => v === 0 ? '$0' : v < 0.0001 ? '<$0.0001' : v < 0.01 ? '$' + v.toFixed(4) : v < 1 ? '$' + v.toFixed(3) : '$' + v.toFixed(2);
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
let pending = false;

function draw(d) {
  const g = d.gauge, b = g.breakdown, w = g.contextWindow || 1;
  const h = [];
  h.push('<h2 id="total">' + fmt(g.tokens) + ' / ' + fmt(w) + ' tokens · ' + Math.round(100 * g.tokens / w) + ' % <span class="level-' + esc(g.level) + '">' + esc(g.level) + '</span></h2>');
  h.push('<div class="muted">' + esc(g.model) + ' · ' + (g.source === 'estimate' ? 'counted' : 'reported usage + what followed') + '</div>');
  if (b) {
    // Widths and colours are set from the script below: the page's CSP allows no style attributes.
    // An overfull window is drawn to its own size.
    const scale = Math.max(w, g.tokens || 0);
    h.push('<div class="stack" id="stack" title="the window; hatched: free">');
    for (const p of b.parts) if (p.tokens > 0) h.push('<div data-c="' + esc(p.category) + '" data-w="' + (100 * p.tokens / scale) + '" title="' + esc(p.label) + ': ' + fmt(p.tokens) + '"></div>');
    h.push('</div><div class="legend" id="legend">');
    for (const p of b.parts) {
      let label = esc(p.label);
      if (p.category === 'tool-results' && b.tools && b.tools.length) label += ' <span class="muted">' + b.tools.slice(0, 3).map((t) => esc(t.name) + ' ' + short(t.tokens)).join(', ') + '</span>';
      h.push('<div class="sw" data-c="' + esc(p.category) + '"></div><div>' + label + '</div><div class="num">' + fmt(p.tokens) + '</div><div class="num muted">' + pct(p.tokens, w) + '</div>');
    }
    h.push('</div>');
    if (b.outside.tokens > 0) {
      h.push('<div class="note muted">Outside the transcript: ' + esc(b.outside.label) + '</div>');
      if (b.outside.known && b.outside.known.length) h.push('<ul class="muted">' + b.outside.known.map((k) => '<li>' + esc(k.name) + ': ' + esc(k.detail) + (k.tokens ? ' (' + fmt(k.tokens) + ' tokens)' : '') + '</li>').join('') + '</ul>');
    } else if (!b.outside.measured) {
      h.push('<div class="note muted">No reported usage: what the agent sends beside the transcript is not in this figure.</div>');
    }
  }
  if (g.reach) h.push('<div class="note" id="reach">' + esc(g.reach) + '.</div>');
  if (g.estimateError !== undefined && g.estimateError !== null) h.push('<div class="note muted">Estimate error ' + (100 * g.estimateError).toFixed(1) + ' % (' + esc(g.estimateErrorNote) + ')</div>');
  if (g.cost) {
    const c = g.cost, bits = [];
    if (c.responses > 0) bits.push('session so far <b>' + dollars(c.session) + '</b>');
    bits.push('next turn <b>' + dollars(c.nextTurn.cached) + '</b> (' + dollars(c.nextTurn.uncached) + ' uncached)');
    h.push('<div class="note" id="cost">Cost · ' + esc(c.model) + ': ' + bits.join(' · ') + '</div>');
  }
  h.push('<h3>Tokens per turn</h3>');
  h.push(turnBars(d.turns));
  h.push('<div class="muted">blue: kept · red: what the dry run removes · click a bar to go to its turn</div>');
  h.push('<h3>Dry run (' + esc(d.dryRun ? d.dryRun.strategies.join(', ') : 'auto') + ')</h3><div id="dryrun">');
  if (d.dryRun) {
    const r = d.dryRun, saved = r.tokensBefore - r.tokensAfter;
    h.push('<div>transcript ' + fmt(r.tokensBefore) + ' → ' + fmt(r.tokensAfter) + ' tokens (' + fmt(saved) + ' removed); window after ≈ ' + fmt(r.after) + ' (' + pct(r.after, w) + ')</div>');
    if (r.savingPerTurn && saved > 0) h.push('<div>saves ' + dollars(r.savingPerTurn.cached) + ' per turn (' + dollars(r.savingPerTurn.uncached) + ' uncached)</div>');
    if (r.economics && saved > 0) h.push('<div id="economics">' + esc(r.economics.line) + '</div>');
    if (r.why) h.push('<div class="note why" id="why">Why so little: ' + esc(r.why) + '</div>');
    if (r.tradeOff && r.tradeOff.length) {
      h.push('<div id="tradeoff"><div>Trade-off (Compact to fit…): tokens after, share of the names kept</div><table>' + r.tradeOff.map((p) =>
        '<tr><td>' + fmt(p.budget) + '</td><td>→ ' + fmt(p.tokens) + '</td><td>' + Math.round(100 * p.kept) + ' %</td><td>' + (p.knee ? '← knee' : '') + '</td></tr>').join('') + '</table></div>');
    }
  } else if (d.dryRunError) {
    h.push('<div class="muted">' + esc(d.dryRunError) + '</div>');
  } else {
    h.push('<div class="muted">' + (pending ? 'computing…' : 'not run yet') + '</div>');
  }
  h.push('</div><p><button id="refresh">Refresh dry run</button></p>');
  h.push('<h3>In the agents\\' loops</h3><div id="integrations">' + integrations(d.integrations) + '</div>');
  // The agent's own compactions: where each sits, its figures, and what its summary lost.
  const m = d.gauge.autoCompact;
  if (m) h.push('<div class="note" id="mark">The agent ' + esc(m.text) + (m.rule ? ' — ' + esc(m.rule) : '') + '</div>');
  if (d.agentCompactions && d.agentCompactions.length) {
    h.push('<h3>The agent\\'s own compactions</h3><ul id="agent-compactions">' + d.agentCompactions.map((x) =>
      '<li data-line="' + x.line + '">' + esc(x.summary) + '</li>').join('') + '</ul>');
    if (d.health && d.health.loop) h.push('<div class="note why">⚠ ' + esc(d.health.warning || '') + '</div>');
  }
  document.getElementById('root').className = '';
  document.getElementById('root').innerHTML = h.join('');
  for (const e of document.querySelectorAll('[data-c]')) e.style.background = colors[e.dataset.c] || 'gray';
  for (const e of document.querySelectorAll('[data-w]')) e.style.width = e.dataset.w + '%';
  document.getElementById('refresh').onclick = () => vscode.postMessage({ type: 'refresh' });
  for (const li of document.querySelectorAll('#agent-compactions li[data-line]')) li.onclick = () => vscode.postMessage({ type: 'reveal', line: Number(li.dataset.line) });
  for (const r of document.querySelectorAll('svg rect[data-line]')) r.onclick = () => vscode.postMessage({ type: 'reveal', line: Number(r.dataset.line) });
}

// integrations says where the agents reach compactd: its MCP server (the agent recalls what a
// placeholder replaced) and Claude Code's hooks (recorded before each compaction, or compactd
// as the compaction).
function integrations(x) {
  if (!x) return '<div class="muted">unknown</div>';
  const out = [];
  if (x.mcp && x.mcp.length) {
    for (const m of x.mcp) out.push('<div>MCP server: ' + esc(m.agent) + ' (' + esc(m.scope) + ') <span class="muted">' + esc(m.path) + (m.current ? '' : ' · outdated: run compactd mcp install ' + esc(m.agent)) + '</span></div>');
  } else {
    out.push('<div class="muted">MCP server: not installed — agents cannot recall what compaction replaced (compactd mcp install AGENT)</div>');
  }
  if (x.hooks && x.hooks.length) {
    for (const k of x.hooks) out.push('<div>Hooks: ' + esc(k.agent) + ' (' + esc(k.scope) + ') ' + (k.compaction ? 'compactd is the compaction' : 'records before each compaction') + ' <span class="muted">' + esc(k.path) + '</span></div>');
  } else {
    out.push('<div class="muted">Hooks: ' + (x.installHooks ? 'not installed (' + esc(x.installHooks) + ')' : 'none for this agent') + '</div>');
  }
  return out.join('');
}

function turnBars(turns) {
  if (!turns || !turns.length) return '<div class="muted">no turns yet</div>';
  const W = 300, H = 120, n = turns.length, max = Math.max(...turns.map((t) => t.tokens), 1);
  const bw = W / n, gap = n > 60 ? 0 : Math.min(2, bw * 0.2);
  const out = ['<svg id="turns" viewBox="0 0 ' + W + ' ' + H + '" preserveAspectRatio="none">'];
  turns.forEach((t, i) => {
    const x = i * bw, total = H * t.tokens / max, rem = H * Math.min(t.removed, t.tokens) / max;
    const title = '<title>turn ' + (t.index + 1) + ': ' + fmt(t.tokens) + ' tokens' + (t.removed ? ', dry run removes ' + fmt(t.removed) : '') + (t.prompt ? ' — ' + esc(t.prompt) : '') + '</title>';
    // Kept at the bottom, what the dry run removes stacked on top.
    out.push('<rect class="kept" data-line="' + t.startLine + '" x="' + x + '" y="' + (H - total + rem) + '" width="' + Math.max(bw - gap, 0.5) + '" height="' + (total - rem) + '">' + title + '</rect>');
    if (rem > 0) out.push('<rect class="removed" data-line="' + t.startLine + '" x="' + x + '" y="' + (H - total) + '" width="' + Math.max(bw - gap, 0.5) + '" height="' + rem + '">' + title + '</rect>');
  });
  out.push('</svg>');
  return out.join('');
}

let last;
window.addEventListener('message', (e) => {
  const m = e.data;
  if (m.type === 'data') { pending = false; last = m.data; draw(m.data); }
  else if (m.type === 'pending') { pending = true; if (last) draw(last); }
  else if (m.type === 'empty') { document.getElementById('root').className = 'muted'; document.getElementById('root').textContent = 'Open an agent transcript to see what fills its context window.'; }
  else if (m.type === 'error') { document.getElementById('root').className = 'muted'; document.getElementById('root').textContent = 'compactd: ' + m.message; }
});
vscode.postMessage({ type: 'ready' });
</script></body></html>`;
}
