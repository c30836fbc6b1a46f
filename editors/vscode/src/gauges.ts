// The last compactd/gauge per conversation, and which one the status bar shows.

/** Params of the server's compactd/gauge notification (and items of compactd/gauges). */
export interface Gauge {
  uri: string;
  format?: string;
  model?: string;
  contextWindow?: number;
  tokens?: number;
  ratio?: number;
  level?: 'ok' | 'warn' | 'critical';
  source?: string;
  active?: boolean;
  updatedAt?: string;
  savings?: Record<string, number>;
  text?: string;
  /** The transcript is gone: drop its gauge. */
  removed?: boolean;
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
