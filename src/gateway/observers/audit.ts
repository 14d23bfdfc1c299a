import { createHash } from 'node:crypto';
import { appendFile, mkdir, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { canonicalJson } from '../pins.js';
import type { CallObserver, CallOutcome, CallRecord } from './call-events.js';

/** One line of the audit log. Nothing a call carried is written, only its SHA-256. */
export interface AuditEntry {
  /** When the call arrived (ISO). */
  time: string;
  /** Who called: a bearer token's name over HTTP, else the client's name and version. */
  client?: string;
  profile?: string;
  /** The exposed tool name called. */
  tool: string;
  /** The upstream that served it, when the name resolved to one. */
  server?: string;
  /** `sha256:` and the hex digest of the arguments as canonical JSON (keys sorted): equal arguments, equal digests. */
  argsDigest: string;
  outcome: CallOutcome;
  durationMs: number;
}

/** Options for {@link AuditLog}. */
export interface AuditLogOptions {
  /** The size past which the file is rotated (to `FILE.1`, `FILE.1` to `FILE.2`, …); default 10 MiB. */
  maxBytes?: number;
  /** How many rotated files are kept; default 5. */
  keep?: number;
  /** Where a write that failed is reported (once per kind of failure). */
  onError?: (error: Error) => void;
}

/**
 * The gateway's audit log (`--audit FILE`): one JSON line per tool call, appended, rotated by size. A
 * line says who called which tool, when, how it ended and how long it took — with a digest of the
 * arguments, never the arguments or the result, so no secret a call carried reaches the file. Lines of
 * one turn of the event loop are written together; order is kept.
 */
export class AuditLog implements CallObserver {
  private queued: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private size: number | undefined;
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly reported = new Set<string>();

  constructor(
    readonly file: string,
    private readonly options: AuditLogOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.keep = Math.max(1, options.keep ?? 5);
  }

  /** Records a finished call. */
  ended(call: CallRecord): void {
    const entry: AuditEntry = {
      time: call.time,
      ...(call.client === undefined ? {} : { client: call.client }),
      ...(call.profile === undefined ? {} : { profile: call.profile }),
      tool: call.name,
      ...(call.server === undefined ? {} : { server: call.server }),
      argsDigest: argumentsDigest(call.args),
      outcome: call.outcome ?? 'failed',
      durationMs: Math.round((call.durationMs ?? 0) * 1000) / 1000,
    };
    this.queued.push(`${JSON.stringify(entry)}\n`);
    if (this.queued.length === 1) this.writing = this.writing.then(() => this.flushQueued());
  }

  /** Resolves once every line recorded so far is in the file. */
  flush(): Promise<void> {
    return this.writing;
  }

  private async flushQueued(): Promise<void> {
    const lines = this.queued.join('');
    this.queued = [];
    try {
      if (this.size === undefined) {
        await mkdir(dirname(this.file), { recursive: true });
        this.size = await stat(this.file).then(
          (s) => s.size,
          () => 0,
        );
      }
      const bytes = Buffer.byteLength(lines);
      if (this.size > 0 && this.size + bytes > this.maxBytes) await this.rotate();
      await appendFile(this.file, lines, { mode: 0o600 });
      this.size += bytes;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (this.reported.has(code)) return;
      this.reported.add(code);
      this.options.onError?.(
        new Error(`cannot write the audit log ${this.file}: ${(error as Error).message}`),
      );
    }
  }

  private async rotate(): Promise<void> {
    for (let n = this.keep - 1; n >= 1; n--)
      await rename(`${this.file}.${n}`, `${this.file}.${n + 1}`).catch(() => undefined);
    await rename(this.file, `${this.file}.1`);
    this.size = 0;
  }
}

/** The audit log's digest of a call's arguments: `sha256:<hex>` of their canonical JSON. */
export function argumentsDigest(args: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(args)).digest('hex')}`;
}
