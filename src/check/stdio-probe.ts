import { childEnvironment } from '../internal/child-environment.js';
import { type GroupChild, spawnGroup, stopGroup } from '../internal/process-group.js';
import type { JsonRpcMessage, Probe } from './probe.js';

/** What starting a stdio server for a check needs. */
export interface StdioTarget {
  command: string;
  args: readonly string[];
  env?: Record<string, string>;
  cwd?: string;
  parentEnv: Readonly<Record<string, string | undefined>>;
}

/**
 * A stdio server under test. Every stdout line is kept apart: JSON-RPC messages are answers and
 * notifications, anything else is a hygiene violation (a log line on the protocol channel).
 */
export class StdioProbe implements Probe {
  readonly kind = 'stdio';
  readonly notifications: JsonRpcMessage[] = [];
  /** stdout lines that are not JSON-RPC messages. */
  readonly stray: string[] = [];
  readonly stderr: string[] = [];
  /** When the process was spawned (performance.now()). */
  readonly spawnedAt: number;
  /** Waiters by id; `undefined` when the process ends before the answer. */
  private readonly waiters = new Map<string, (message: JsonRpcMessage | undefined) => void>();
  private nextId = 1;
  private exited = false;
  /** How the process ended, once it has (and its stderr has been read to the end). */
  private readonly ending: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(private readonly child: GroupChild) {
    this.spawnedAt = performance.now();
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      pending += text;
      let index = pending.indexOf('\n');
      while (index !== -1) {
        this.onLine(pending.slice(0, index).replace(/\r$/, ''));
        pending = pending.slice(index + 1);
        index = pending.indexOf('\n');
      }
    });
    let errPending = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      errPending += text;
      const lines = errPending.split('\n');
      errPending = lines.pop() ?? '';
      this.stderr.push(...lines);
    });
    child.stdin.on('error', () => undefined);
    child.once('exit', () => {
      this.exited = true;
      // No answer can come any more: nobody waits out a timeout for a process that is gone.
      for (const waiter of this.waiters.values()) waiter(undefined);
      this.waiters.clear();
    });
    this.ending = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        if (errPending.trim() !== '') this.stderr.push(errPending);
        errPending = '';
        resolve({ code, signal });
      });
    });
  }

  /** How the process ended (exit code or signal), after its stderr was read to the end. */
  ended(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.ending;
  }

  /** Spawns the server; rejects when it cannot start. */
  static async start(target: StdioTarget): Promise<StdioProbe> {
    const child = spawnGroup(target.command, target.args, {
      env: childEnvironment(target.parentEnv, target.env, false),
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return new StdioProbe(child);
  }

  alive(): boolean {
    return !this.exited;
  }

  request(method: string, params: Record<string, unknown> | undefined, timeoutMs: number) {
    const id = this.nextId++;
    const frame = JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.raw(frame, id, timeoutMs);
  }

  raw(frame: string, id: string | number | null, timeoutMs: number): Promise<JsonRpcMessage | undefined> {
    const answer = this.expect(id, timeoutMs);
    this.write(`${frame}\n`);
    return answer;
  }

  /** Writes without waiting for anything (bursts). */
  write(text: string): void {
    if (!this.exited) this.child.stdin.write(text);
  }

  /** Waits for the answer with `id` without writing (for bursts written in one go). */
  expect(id: string | number | null, timeoutMs: number): Promise<JsonRpcMessage | undefined> {
    const key = JSON.stringify(id);
    if (this.exited) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.set(key, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    this.write(`${JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) })}\n`);
  }

  close(): Promise<void> {
    return stopGroup(this.child, { stdinGraceMs: 500, termGraceMs: 1000 });
  }

  /** Sends a signal to the server process itself (not its group): what a terminal or supervisor does. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    let message: JsonRpcMessage;
    try {
      message = JSON.parse(line) as JsonRpcMessage;
    } catch {
      this.stray.push(line);
      return;
    }
    if (typeof message !== 'object' || message === null || message.jsonrpc !== '2.0') {
      this.stray.push(line);
      return;
    }
    if (message.method !== undefined && message.id === undefined) {
      this.notifications.push(message);
      return;
    }
    if (message.method !== undefined) return; // a server-to-client request: not answered by the gates
    const waiter = this.waiters.get(JSON.stringify(message.id ?? null));
    if (waiter) {
      this.waiters.delete(JSON.stringify(message.id ?? null));
      waiter(message);
    }
  }
}
