import type { Client } from '@modelcontextprotocol/client';
import { isSessionLost } from './remote-errors.js';

/** What a {@link RequestRunner} needs from its connection. */
export interface RunnerTarget {
  /** The client to send on; throws SERVER_UNAVAILABLE when the server cannot take requests. */
  ready(): Client;
  /** True while the server is ready (a session lost then is worth one re-initialization). */
  isReady(): boolean;
  /** Whether a lost session can be re-initialized (remote servers on the 2025-era protocol). */
  canReinitialize(): boolean;
  /** Connects again on a fresh transport, with a new session. */
  reconnect(): Promise<void>;
}

/**
 * Runs a connection's requests: each fails at once when the server dies meanwhile, and a remote server
 * that lost our 2025-era session (404, as the spec says, or the 400 "no valid session" of servers built
 * on older SDK examples) gets a fresh `initialize` and the request is sent once more.
 */
export class RequestRunner {
  private readonly inflight = new Set<(error: Error) => void>();
  private reinitializing: Promise<void> | undefined;
  /** Counts sessions: a request that fails after a newer one started is retried on it. */
  private generation = 0;

  constructor(private readonly target: RunnerTarget) {}

  run<T>(request: (client: Client) => Promise<T>): Promise<T> {
    const first = this.runOnce(request);
    if (!this.target.canReinitialize()) return first;
    const generation = this.generation;
    return first.catch(async (error: unknown) => {
      // Either this request found the session gone, or another one did and replaced the connection
      // under it: both get one more try on the new session.
      const replaced = generation !== this.generation || this.reinitializing !== undefined;
      if (!replaced && !(this.target.isReady() && isSessionLost(error))) throw error;
      await (this.reinitializing ?? (replaced ? undefined : this.reinitialize()));
      return this.runOnce(request);
    });
  }

  /** Fails every request in flight (the server died or was stopped). */
  failAll(error: Error): void {
    for (const reject of this.inflight) reject(error);
    this.inflight.clear();
  }

  private runOnce<T>(request: (client: Client) => Promise<T>): Promise<T> {
    const client = this.target.ready();
    return new Promise<T>((resolve, reject) => {
      this.inflight.add(reject);
      request(client).then(
        (value) => {
          this.inflight.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.inflight.delete(reject);
          reject(error);
        },
      );
    });
  }

  /** Concurrent callers share one attempt. */
  private reinitialize(): Promise<void> {
    this.reinitializing ??= this.target
      .reconnect()
      .then(() => {
        this.generation++;
      })
      .finally(() => {
        this.reinitializing = undefined;
      });
    return this.reinitializing;
  }
}
