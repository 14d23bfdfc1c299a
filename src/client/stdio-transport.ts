import { resolve } from 'node:path';
import { type JSONRPCMessage, serializeMessage, type Transport } from '@modelcontextprotocol/client';
import type { SandboxSetting } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { BatchedWriter } from '../internal/batched-writer.js';
import { spawnProblem } from '../internal/failure-words.js';
import { LineSplitter, MAX_LINE_LENGTH, type SkippedLine } from '../internal/line-splitter.js';
import { type GroupChild, groupAlive, spawnGroup, stopGroup } from '../internal/process-group.js';
import { skippedFrame } from '../internal/skipped-frame.js';
import {
  deniedPathIn,
  prepareSandbox,
  recordDenial,
  type SandboxLaunch,
  type SandboxLaunchOptions,
  SandboxUnavailableError,
  type StartStep,
  setSandboxState,
} from '../sandbox/index.js';

/** How to start a stdio server. */
export interface StdioTransportOptions {
  command: string;
  args: readonly string[];
  cwd?: string;
  env: Record<string, string>;
  /** Each line the server writes to stderr, as it comes. */
  onStderrLine?: (line: string) => void;
  /** The server's name, for its sandbox state and denials. */
  server?: string;
  /** Run it in an OS sandbox (docs/sandbox.md); `false` or absent: unsandboxed. */
  sandbox?: SandboxSetting;
  /** Sandbox knobs of learn and check (everything allowed, strace's log, the network watched). */
  sandboxOptions?: Partial<SandboxLaunchOptions>;
}

/** A spawn that failed before the process ran (ENOENT, EACCES, bad cwd). */
export class SpawnError extends McpkitError {
  constructor(message: string, cause: unknown) {
    super('SERVER_FAILED', message, { cause });
  }
}

/**
 * stdio client transport over mcpkit's process groups. Not the SDK's StdioClientTransport: that one spawns
 * outside a process group, so `npx`/wrapper grandchildren survive it, and its version negotiation spawns
 * the server a second time as a probe. This one starts the process exactly once.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: GroupChild;
  private closing?: Promise<void>;
  private closed = false;
  private writer: BatchedWriter | undefined;
  /** True once the server process has exited. */
  exited = false;
  /** The last lines of stderr, for error messages when the server dies. */
  readonly recentStderr: string[] = [];
  private stderrEnd: Promise<void> = Promise.resolve();
  /** The sandbox it runs in, while it runs. */
  sandbox: SandboxLaunch | undefined;
  /** The slow step of the start under way (`installing @acme/notes-mcp`), until the process is spawned. */
  startStep: StartStep | undefined;
  /** Aborted by close(): stops a start still preparing (an npx install) and keeps it from spawning. */
  private readonly preparing = new AbortController();
  private launching: Promise<SandboxLaunch | undefined> | undefined;

  constructor(private readonly options: StdioTransportOptions) {}

  /** The server's pid once started. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** How the process ended; undefined while it runs. */
  get exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    const child = this.child;
    return this.exited && child ? { code: child.exitCode, signal: child.signalCode } : undefined;
  }

  /**
   * Resolves once all of stderr is read: after the whole group is gone (`close()`), so a start failure
   * can quote the line that says why even when the exit was seen before the last write.
   */
  stderrEnded(): Promise<void> {
    return this.stderrEnd;
  }

  /** Present so the SDK classifies this as a stdio transport for its probe rules. */
  get stderr(): null {
    return null;
  }

  /** Spawns the server; rejects with SpawnError when the process cannot start. */
  async start(): Promise<void> {
    if (this.child) throw new Error('StdioTransport already started');
    this.launching = this.sandboxLaunch();
    const launch = await this.launching;
    this.startStep = undefined;
    if (this.preparing.signal.aborted) {
      // Closed while the sandbox was prepared: nothing may start after the caller gave up on it.
      await launch?.dispose();
      throw new SpawnError('stopped before the server was started', undefined);
    }
    const child = spawnGroup(launch?.command ?? this.options.command, launch?.args ?? this.options.args, {
      env: launch?.env ?? this.options.env,
      ...(this.options.cwd === undefined ? {} : { cwd: this.options.cwd }),
    });
    this.child = child;
    if (launch) {
      child.once('close', () => void launch.dispose());
      child.once('error', () => void launch.dispose());
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(new SpawnError(spawnProblem(this.options.command, error, this.options.cwd), error));
      });
    });
    child.stdout.setEncoding('utf8');
    const lines = new LineSplitter((line) => this.onStdoutLine(line), {
      onOverflow: (line) => this.onSkippedLine(line),
    });
    child.stdout.on('data', (chunk: string) => lines.push(chunk));
    child.stdout.on('error', () => undefined);
    child.stdin.on('error', (error) => this.onerror?.(error));
    this.readStderr(child);
    child.once('exit', () => {
      this.exited = true;
      // A leader that died may leave children behind (a wrapper's server); they go with it.
      if (groupAlive(child)) void stopGroup(child, { stdinGraceMs: 0 });
      this.markClosed();
    });
  }

  /** The sandbox to start in, when the entry asks for one; throws the one line when there can be none. */
  private async sandboxLaunch(): Promise<SandboxLaunch | undefined> {
    const { sandbox, server } = this.options;
    if (!sandbox) {
      if (server !== undefined) setSandboxState(server, 'off');
      return undefined;
    }
    const name = server ?? this.options.command;
    try {
      this.sandbox = await prepareSandbox({
        ...this.options.sandboxOptions,
        setting: sandbox,
        command: this.options.command,
        args: this.options.args,
        cwd: resolve(this.options.cwd ?? process.cwd()),
        env: this.options.env,
        signal: this.preparing.signal,
        onStep: (step) => {
          this.startStep = step;
        },
        onProxyEvent: (event) => {
          if (event.outcome === 'denied') recordDenial(name, 'host', `${event.host}:${event.port}`);
          this.options.sandboxOptions?.onProxyEvent?.(event);
        },
      });
    } catch (error) {
      if (!(error instanceof SandboxUnavailableError)) {
        const why = error instanceof Error ? error.message : String(error);
        throw new SpawnError(`cannot prepare the sandbox of "${name}": ${why}`, error);
      }
      setSandboxState(name, 'unavailable', error.reason);
      throw new SpawnError(
        `sandbox unavailable: ${error.reason}; to run "${name}" unsandboxed on purpose, set "sandbox": false in its entry`,
        error,
      );
    }
    setSandboxState(name, 'on');
    return this.sandbox;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child || this.closed) throw new Error('transport is closed');
    this.writer ??= new BatchedWriter(child.stdin);
    await this.writer.write(serializeMessage(message));
  }

  /** Runs the shutdown ladder (stdin EOF → SIGTERM → SIGKILL, on the whole group). */
  close(): Promise<void> {
    this.preparing.abort();
    if (!this.child) {
      this.markClosed();
      // A start still preparing (an npx install) is stopped: closed means its processes are gone.
      return (this.launching ?? Promise.resolve()).then(
        () => undefined,
        () => undefined,
      );
    }
    this.closing ??= stopGroup(this.child).then(() => this.markClosed());
    return this.closing;
  }

  /**
   * Newline-delimited JSON from the server. Each line is parsed with JSON.parse and a shape check only:
   * the SDK validates every message again by method, so its extra schema pass per line (a third of the
   * client's CPU under load) buys nothing here.
   */
  private onStdoutLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      // A non-JSON line on stdout (a stray log): report it and keep reading.
      this.onerror?.(error as Error);
      return;
    }
    if (
      typeof message !== 'object' ||
      message === null ||
      (message as { jsonrpc?: unknown }).jsonrpc !== '2.0'
    ) {
      this.onerror?.(new Error(`not a JSON-RPC 2.0 message: ${line.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  /**
   * A line over the cap was dropped unread. When it answered one of our requests, that request fails now
   * with the reason, instead of waiting for its time-out with no word why.
   */
  private onSkippedLine(line: SkippedLine): void {
    const size = `${(line.length / 1024 / 1024).toFixed(1)} MiB`;
    const limit = `${MAX_LINE_LENGTH / 1024 / 1024} MiB`;
    const frame = skippedFrame(line);
    this.onerror?.(
      new Error(`skipped a line of ${size} from the server: longer than the ${limit} mcpkit reads`),
    );
    if (frame?.kind !== 'response') return;
    this.onmessage?.({
      jsonrpc: '2.0',
      id: frame.id,
      error: {
        code: -32603,
        message: `the server's answer is ${size}, longer than the ${limit} mcpkit reads from a stdio server`,
      },
    } as JSONRPCMessage);
  }

  private readStderr(child: GroupChild): void {
    const lines = new LineSplitter((line) => this.stderrLine(line));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => lines.push(text));
    this.stderrEnd = new Promise<void>((resolve) => {
      child.stderr.once('close', resolve);
      child.stderr.on('end', () => lines.flush());
    });
  }

  private stderrLine(line: string): void {
    if (this.sandbox) {
      const path = deniedPathIn(line);
      if (path !== undefined) recordDenial(this.options.server ?? this.options.command, 'path', path);
    }
    this.recentStderr.push(line);
    if (this.recentStderr.length > 20) this.recentStderr.shift();
    this.options.onStderrLine?.(line);
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
