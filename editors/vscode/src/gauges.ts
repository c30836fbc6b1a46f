// The last compactd/gauge per conversation, and which one the status bar shows.

// What the server sends is typed by wire.ts, generated from its Go types (lsp/messages.go):
// the compactd/gauge notification's params, compactd/agentCompaction's, and their parts.
import { AgentCompactionNote, Gauge, Mark } from './wire';

export type { AgentCompactionNote, Gauge, Mark };

/** The mark in a few words with what is left before it: "auto-compacts at 167k (default), 130k left". */
export function markText(m: Mark | undefined): string {
  if (!m) return '';
  if (m.disabled || !m.at) return m.text;
  return m.buffer > 0 ? `${m.text}, ${short(m.buffer)} left` : `${m.text}, due now`;
}

/** Dollars as the server words them: $0.42, $0.0031, $12.40. */
export function dollars(v: number | undefined): string {
  if (v === undefined || v === null) return '?';
  if (v === 0) return '$0';
  if (v < 0) return '-' + dollars(-v);
  if (v < 0.0001) return '<$0.0001';
  if (v < 0.01) return `$${v.toFixed(4)}`;
  if (v < 1) return `$${v.toFixed(3)}`;
  if (v < 1000) return `$${v.toFixed(2)}`;
  return `$${Math.round(v)}`;
}

/** A token count with thousands separators: 191,537. */
export function thousands(n: number | undefined): string {
  return Math.round(n ?? 0).toLocaleString('en-US');
}

/**
 * The status-bar tooltip's breakdown, reach, error and cost lines (Markdown), largest parts
 * first; empty for a gauge from an older server.
 */
export function insightMarkdown(g: Gauge): string {
  const lines: string[] = [];
  const b = g.breakdown;
  if (b) {
    const window = b.contextWindow || g.contextWindow || 1;
    const parts = [...(b.parts ?? [])].sort((x, y) => y.tokens - x.tokens);
    lines.push('', '**What fills the window**', '');
    for (const p of parts.slice(0, 5)) {
      let label = p.label;
      if (p.category === 'outside' && p.tokens > 0) label += ` (${b.outside.label})`;
      if (p.category === 'tool-results' && b.tools?.length) label += ` — ${b.tools.slice(0, 3).map((t) => `${t.name} ${short(t.tokens)}`).join(', ')}`;
      lines.push(`- ${label}: ${thousands(p.tokens)} (${((100 * p.tokens) / window).toFixed(1)} %)`);
    }
    if (parts.length > 5) lines.push(`- ${parts.length - 5} more in the Context view`);
    for (const k of b.outside.known ?? []) lines.push(`- outside, ${k.name}: ${k.detail ?? ''}${k.tokens ? ` (${thousands(k.tokens)} tokens)` : ''}`);
  }
  if (g.autoCompact) {
    const m = g.autoCompact;
    lines.push('', `**Agent's own compaction:** ${markText(m)}${m.rule ? ` — ${m.rule}` : ''}`);
    for (const st of m.settings ?? []) lines.push(`- ${st.name} = ${st.value} (${st.source}${st.file ? `, ${st.file}` : ''})`);
    if (m.note) lines.push('', `_${m.note}_`);
  }
  if (g.reach) lines.push('', g.reach + '.');
  if (g.estimateError !== undefined && g.estimateError !== null) {
    lines.push('', `Estimate error ${(100 * g.estimateError).toFixed(1)} % (${g.estimateErrorNote ?? ''})`);
  }
  const c = g.cost;
  if (c) {
    const bits: string[] = [];
    if (c.responses > 0) bits.push(`session so far ${dollars(c.session)}`);
    bits.push(`next turn ${dollars(c.nextTurn.cached)} (${dollars(c.nextTurn.uncached)} uncached)`);
    if (g.savingPerTurn) bits.push(`compacting saves ${dollars(g.savingPerTurn.cached)} per turn`);
    lines.push('', `Cost (${c.model}): ${bits.join(' · ')}`);
  }
  if (g.economics && g.economics.removed > 0) lines.push('', `Compacting now: ${g.economics.line}`);
  return lines.join('\n');
}

export class GaugeStore {
  private readonly byUri = new Map<string, Gauge>();
  private activeUri: string | undefined;
  private lastUri: string | undefined;

  update(g: Gauge): void {
    if (!g || typeof g.uri !== 'string') return;
    const key = normalizeUri(g.uri);
    if (g.removed) {
      // The transcript is gone.
      this.byUri.delete(key);
      if (this.activeUri === key) this.activeUri = undefined;
      if (this.lastUri === key) this.lastUri = undefined;
      return;
    }
    this.byUri.set(key, g);
    this.lastUri = key;
    if (g.active) this.activeUri = key;
  }

  get(uri: string): Gauge | undefined {
    return this.byUri.get(normalizeUri(uri));
  }

  all(): Gauge[] {
    return [...this.byUri.values()];
  }

  /** The editor's own conversation when it is one, else the active conversation. */
  pick(editorUri: string | undefined): Gauge | undefined {
    const own = editorUri ? this.get(editorUri) : undefined;
    if (own) return own;
    return (this.activeUri && this.byUri.get(this.activeUri)) || (this.lastUri && this.byUri.get(this.lastUri)) || undefined;
  }
}

/** VS Code and Go spell file URIs differently (%3A, trailing case); compare decoded. */
export function normalizeUri(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}

/** A token count as the status bar shows it: 950, 167k, 1.0M. */
export function shortTokens(n: number | undefined): string {
  return short(n);
}

function short(n: number | undefined): string {
  const v = n ?? 0;
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${Math.round(v / 1e3)}k`;
  return String(Math.round(v));
}

/** The gauge as the server words it ("156k / 200k · 78 %"), or rebuilt from its numbers. */
export function gaugeText(g: Gauge): string {
  if (g.text) return g.text;
  return `${short(g.tokens)} / ${short(g.contextWindow)} · ${Math.round((g.ratio ?? 0) * 100)} %`;
}
