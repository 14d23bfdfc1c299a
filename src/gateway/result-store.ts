import { randomUUID } from 'node:crypto';

/** Where spilled results are read: `mcpkit://results/<id>` (whole) and `mcpkit://results/<id>/<page>`. */
export const RESULTS_URI = 'mcpkit://results/';

/** Bounds of a {@link ResultStore}: how many results, how many characters in all, and for how long. */
export interface ResultStoreLimits {
  /** Default 100. */
  maxEntries?: number;
  /** Characters over all kept results; default 64 Mi (a JavaScript string of them is up to 128 MiB). */
  maxChars?: number;
  /** Default 30 min after the result was made. */
  ttlMs?: number;
}

interface Stored {
  text: string;
  /** Where each page ends (exclusive), the last one at `text.length`. */
  ends: number[];
  expires: number;
}

/**
 * Whole tool results the gateway cut for its clients, kept in memory for a while so a client can read the
 * rest as a resource. Oldest first out when a bound is passed; ids are random UUIDs (a client reads only
 * what it was told about).
 */
export class ResultStore {
  private readonly entries = new Map<string, Stored>();
  private chars = 0;
  readonly maxEntries: number;
  readonly maxChars: number;
  readonly ttlMs: number;

  constructor(
    limits: ResultStoreLimits = {},
    private readonly now: () => number = Date.now,
  ) {
    this.maxEntries = limits.maxEntries ?? 100;
    this.maxChars = limits.maxChars ?? 64 * 1024 * 1024;
    this.ttlMs = limits.ttlMs ?? 30 * 60_000;
  }

  /** Keeps a text cut in pages (`ends`); its id, or undefined when it is larger than the whole store. */
  put(text: string, ends: number[]): string | undefined {
    if (text.length > this.maxChars) return undefined;
    this.expire();
    const id = randomUUID();
    this.entries.set(id, { text, ends, expires: this.now() + this.ttlMs });
    this.chars += text.length;
    while (this.entries.size > this.maxEntries || this.chars > this.maxChars) this.drop(this.oldest());
    return id;
  }

  /**
   * The text a results URI names: the whole (`…/<id>`) or one page (`…/<id>/<n>`, from 1); undefined when the
   * URI is not one of ours, or its result expired or never was.
   */
  read(uri: string): { text: string; pages: number } | undefined {
    if (!uri.startsWith(RESULTS_URI)) return undefined;
    this.expire();
    const [id = '', page, extra] = uri.slice(RESULTS_URI.length).split('/');
    const stored = this.entries.get(id);
    if (!stored || extra !== undefined) return undefined;
    const pages = stored.ends.length;
    if (page === undefined) return { text: stored.text, pages };
    const n = /^[1-9][0-9]*$/u.test(page) ? Number(page) : 0;
    if (n < 1 || n > pages) return undefined;
    return { text: stored.text.slice(stored.ends[n - 2] ?? 0, stored.ends[n - 1]), pages };
  }

  /** How many results are kept now. */
  get size(): number {
    return this.entries.size;
  }

  private expire(): void {
    const now = this.now();
    // Insertion order is expiry order (one TTL for all).
    for (const [id, stored] of this.entries) {
      if (stored.expires > now) return;
      this.drop(id);
    }
  }

  private oldest(): string {
    return this.entries.keys().next().value as string;
  }

  private drop(id: string): void {
    const stored = this.entries.get(id);
    if (!stored) return;
    this.entries.delete(id);
    this.chars -= stored.text.length;
  }
}
