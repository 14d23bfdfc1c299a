import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';
import { McpkitError } from '../errors/index.js';
import { importOptional } from '../internal/optional-dependency.js';
import { SEALED_SESSION_MAX_AGE_MS, sessionKey } from './session-seal.js';

/** Raw commands to a Redis server (what the shared state needs of a client; `node-redis` gives it). */
export interface RedisCommands {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Events kept per session for resumption: a client that is gone longer than this many events starts over. */
const EVENTS_MAX = 1000;
/** How long a session's events outlive its last one (a resumption comes back within seconds to minutes). */
const EVENTS_TTL_S = 60 * 60;
const ENDED_CHANNEL = 'mcpkit:session-ended';
/** Request streams of one session counted at once. */
const COUNTERS_MAX = 256;

/**
 * The state gateway replicas share in Redis (`--state redis://…`): each 2025 session's SSE events (a Redis
 * stream per session, so a client resuming with `Last-Event-ID` on another replica gets what it missed),
 * sessions ended with DELETE (so no replica rebuilds them from their sealed id), and a client for other
 * stores (pins). One connection for commands, one for subscriptions.
 */
export class RedisState {
  private readonly endedListeners = new Set<(key: string) => void>();

  private constructor(
    /** host:port (for messages; no credentials). */
    readonly where: string,
    private readonly onError: (error: Error) => void,
    /** Commands (shared with other stores: pins). */
    readonly redis: RedisCommands,
    private readonly closers: (() => Promise<unknown>)[],
    /** Subscribes to a channel (a second connection: a subscribed one takes no commands). */
    readonly subscribe: (channel: string, listener: (message: string) => void) => Promise<void>,
  ) {}

  /** Connects to `redis://host:port[/db]`; an unreachable server is one error naming it. */
  static async connect(url: string, onError: (error: Error) => void = () => undefined): Promise<RedisState> {
    const { createClient } = await importOptional('redis', () => import('redis'));
    const where = redisAddress(url);
    // No endless reconnect loop at start: a wrong URL must fail the command at once.
    let started = false;
    const client = createClient({
      url,
      // While Redis is away a command fails at once instead of waiting in a queue: sessions keep working
      // (their ids are sealed), only what lives in Redis is missing until it is back.
      disableOfflineQueue: true,
      socket: { reconnectStrategy: (retries: number) => (started ? Math.min(retries * 100, 2000) : false) },
    });
    client.on('error', (error: Error) => {
      if (started) onError(new Error(`redis ${where}: ${error.message}`));
    });
    try {
      await client.connect();
    } catch (cause) {
      client.destroy();
      throw new McpkitError(
        'SERVER_UNAVAILABLE',
        `cannot reach Redis at ${where}: ${(cause as Error).message || String(cause)}; start it or fix --state`,
        { cause },
      );
    }
    const subscriber = client.duplicate();
    subscriber.on('error', (error: Error) => onError(new Error(`redis ${where}: ${error.message}`)));
    await subscriber.connect();
    started = true;
    const state: RedisState = new RedisState(
      where,
      onError,
      { sendCommand: (args) => client.sendCommand(args) as Promise<unknown> },
      // Pending commands are waited for while Redis is there; when it is not, nothing waits.
      [subscriber, client].map((c) => async () => (c.isReady ? c.close() : c.destroy())),
      (channel, listener) => subscriber.subscribe(channel, listener),
    );
    await state.subscribe(ENDED_CHANNEL, (key) => {
      for (const listener of state.endedListeners) listener(key);
    });
    return state;
  }

  /** The SDK event store of one session, as a Redis stream. */
  eventStore(sessionId: string): SessionEventStore {
    return new SessionEventStore(this.redis, `mcpkit:events:${sessionKey(sessionId)}`, this.onError);
  }

  /** Marks a session ended on every replica (its sealed id opens to nothing from now on). */
  async endSession(sessionId: string): Promise<void> {
    const key = sessionKey(sessionId);
    const ttl = String(Math.ceil(SEALED_SESSION_MAX_AGE_MS / 1000));
    await this.redis.sendCommand(['SET', `mcpkit:session-ended:${key}`, '1', 'EX', ttl]);
    await this.redis.sendCommand(['DEL', `mcpkit:events:${key}`]);
    await this.redis.sendCommand(['PUBLISH', ENDED_CHANNEL, key]);
  }

  /** Whether a session was ended (DELETE) on some replica. */
  async sessionEnded(sessionId: string): Promise<boolean> {
    return (await this.redis.sendCommand(['EXISTS', `mcpkit:session-ended:${sessionKey(sessionId)}`])) === 1;
  }

  /** Called with the {@link sessionKey} of each session another replica (or this one) ended. */
  onSessionEnded(listener: (key: string) => void): () => void {
    this.endedListeners.add(listener);
    return () => this.endedListeners.delete(listener);
  }

  async close(): Promise<void> {
    for (const close of this.closers) await close().catch(() => undefined);
  }
}

/**
 * One session's SSE events in a Redis stream. A request's stream lives on the one replica answering it, so
 * its event ids are counted here (`<stream id>/c<n>`) and the XADD is not waited for: the answer reaches
 * the client without a Redis round trip (commands on one connection keep their order). The standalone GET
 * stream gets events from any replica of the session, so those wait for Redis's entry id
 * (`_GET_stream/<entry id>`), which orders them. The priming event is not stored: nothing in it to replay.
 * `muted` stores nothing (a session being rebuilt replays its `initialize`, whose answer nobody reads).
 */
export class SessionEventStore implements EventStore {
  muted = false;
  private readonly counters = new Map<StreamId, number>();
  private writes = 0;

  constructor(
    private readonly redis: RedisCommands,
    private readonly key: string,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const priming = Object.keys(message).length === 0;
    if (this.muted || (priming && streamId !== STANDALONE)) return `${streamId}/c0`;
    const add = ['XADD', this.key, 'MAXLEN', '~', String(EVENTS_MAX), '*', 's', streamId];
    // Refreshed now and then, not per event: a session's events outlive its last one by about the TTL.
    if (this.writes++ % 32 === 0)
      void this.redis.sendCommand(['EXPIRE', this.key, String(EVENTS_TTL_S)]).catch(this.failed);
    if (streamId === STANDALONE) {
      try {
        const entry = (await this.redis.sendCommand([...add, 'm', JSON.stringify(message)])) as string;
        return `${streamId}/${entry}`;
      } catch (error) {
        // The notification still goes out live; only its replay is lost.
        this.failed(error as Error);
        return `${streamId}/c0`;
      }
    }
    const n = (this.counters.get(streamId) ?? 0) + 1;
    this.counters.set(streamId, n);
    // Request streams are short-lived; the oldest counters go (a batch's stream may carry several answers,
    // so an answer alone does not end one).
    if (this.counters.size > COUNTERS_MAX) this.counters.delete(this.counters.keys().next().value as string);
    void this.redis.sendCommand([...add, 'n', String(n), 'm', JSON.stringify(message)]).catch(this.failed);
    return `${streamId}/c${n}`;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return parseEventId(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) throw new Error(`not an event id of this server: ${lastEventId}`);
    const counted = parsed.position.startsWith('c');
    const after = counted ? Number(parsed.position.slice(1)) : 0;
    const from = counted ? '-' : `(${parsed.position}`;
    const entries = (await this.redis.sendCommand(['XRANGE', this.key, from, '+'])) as [string, string[]][];
    for (const [entry, fields] of entries ?? []) {
      if (fieldOf(fields, 's') !== parsed.streamId) continue;
      const text = fieldOf(fields, 'm');
      const n = Number(fieldOf(fields, 'n'));
      if (text === undefined || (counted && !(n > after))) continue;
      await send(`${parsed.streamId}/${counted ? `c${n}` : entry}`, JSON.parse(text) as JSONRPCMessage);
    }
    return parsed.streamId;
  }

  private failing = false;
  /** One line per outage, not one per event. */
  private readonly failed = (error: Error) => {
    if (this.failing) return;
    this.failing = true;
    this.onError(new Error(`cannot store SSE events (no resumption until Redis is back): ${error.message}`));
    setTimeout(() => {
      this.failing = false;
    }, 10_000).unref();
  };
}

/** The SDK's id of a session's standalone (GET) SSE stream. */
const STANDALONE = '_GET_stream';

function parseEventId(eventId: string): { streamId: string; position: string } | undefined {
  const at = eventId.lastIndexOf('/');
  if (at <= 0) return undefined;
  const position = eventId.slice(at + 1);
  if (!/^(?:c\d+|\d+-\d+)$/u.test(position)) return undefined;
  return { streamId: eventId.slice(0, at), position };
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

/** The field/value pairs of an HGETALL reply (a flat array over RESP2, a map over RESP3). */
export function hashEntries(reply: unknown): [string, string][] {
  if (!Array.isArray(reply)) return Object.entries((reply ?? {}) as Record<string, string>);
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) out.push([String(reply[i]), String(reply[i + 1])]);
  return out;
}

/** host:port of a redis:// URL, without credentials (for messages). */
export function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Error('not redis');
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `--state must be a redis://host:port URL, got "${url.replace(/\/\/[^@/]*@/u, '//…@')}"`,
    );
  }
}
