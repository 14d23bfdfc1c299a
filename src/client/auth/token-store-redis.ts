import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpkitError } from '../../errors/index.js';
import { hashEntries, type RedisCommands, type RedisState, SecretBox } from '../../serve/index.js';
import type { ServerAuthRecord, TokenStore } from './token-store.js';

const RECORDS = 'mcpkit:oauth';
const VERSION = 'mcpkit:oauth-version';
const CHANNEL = 'mcpkit:oauth-changed';
/** How long a lock is held at most: a process that died holding one lets go by then. */
const WRITE_LOCK_MS = 15_000;
const REFRESH_LOCK_MS = 60_000;
const WAIT_MS = 30_000;
// Deletes the lock only if it is still ours (it may have expired and been taken since).
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * The token store of gateway replicas (`--state redis://…` with `--session-key`): every server's record
 * in one Redis hash, each encrypted at rest (AES-256-GCM under a key derived from the session key, so a
 * dump of Redis reveals no token). Updates and refreshes take Redis locks (SET NX PX) as the file store
 * takes lock files, and a change is announced so every replica notices a login made anywhere.
 */
export class RedisTokenStore implements TokenStore {
  readonly location: string;
  private readonly listeners = new Set<() => void>();
  private subscribed = false;

  constructor(
    private readonly redis: RedisCommands,
    private readonly box: SecretBox,
    private readonly subscribe: (channel: string, listener: (message: string) => void) => Promise<void>,
    where: string,
  ) {
    this.location = `redis ${where} (encrypted)`;
  }

  /** The store in a connected {@link RedisState}, encrypted under a key derived from the replicas' secret. */
  static over(state: RedisState, secret: string | Buffer): RedisTokenStore {
    return new RedisTokenStore(
      state.redis,
      new SecretBox(secret, 'mcpkit token store v1'),
      (channel, listener) => state.subscribe(channel, listener),
      state.where,
    );
  }

  async read(url: string): Promise<ServerAuthRecord | undefined> {
    const sealed = (await this.redis.sendCommand(['HGET', RECORDS, url])) as string | null;
    return sealed ? this.open(url, sealed) : undefined;
  }

  async list(): Promise<ServerAuthRecord[]> {
    return hashEntries(await this.redis.sendCommand(['HGETALL', RECORDS])).map(([url, sealed]) =>
      this.open(url, sealed),
    );
  }

  async version(): Promise<string> {
    return String((await this.redis.sendCommand(['GET', VERSION])) ?? '0');
  }

  async update(
    url: string,
    change: (current: ServerAuthRecord) => ServerAuthRecord | undefined,
  ): Promise<ServerAuthRecord | undefined> {
    return this.locked(`w:${digest(url)}`, WRITE_LOCK_MS, async () => {
      const current = await this.read(url);
      const next = change(structuredClone(current ?? { url, issuers: {} }));
      if (JSON.stringify(next) === JSON.stringify(current)) return next;
      if (next) await this.redis.sendCommand(['HSET', RECORDS, url, this.box.seal(JSON.stringify(next))]);
      else await this.redis.sendCommand(['HDEL', RECORDS, url]);
      await this.redis.sendCommand(['INCR', VERSION]);
      await this.redis.sendCommand(['PUBLISH', CHANNEL, digest(url)]);
      return next;
    });
  }

  exclusive<T>(url: string, work: () => Promise<T>): Promise<T> {
    return this.locked(`r:${digest(url)}`, REFRESH_LOCK_MS, work);
  }

  watch(onChange: () => void): () => void {
    this.listeners.add(onChange);
    if (!this.subscribed) {
      this.subscribed = true;
      void this.subscribe(CHANNEL, () => {
        for (const listener of this.listeners) listener();
      }).catch(() => undefined);
    }
    return () => this.listeners.delete(onChange);
  }

  private open(url: string, sealed: string): ServerAuthRecord {
    const text = this.box.open(sealed);
    if (text === undefined)
      throw new McpkitError(
        'AUTH_REQUIRED',
        `the stored login for ${url} does not open with this session key (another key wrote it); log in again with \`mcpkit auth login\``,
      );
    return JSON.parse(text) as ServerAuthRecord;
  }

  private async locked<T>(name: string, holdMs: number, work: () => Promise<T>): Promise<T> {
    const key = `mcpkit:oauth-lock:${name}`;
    const token = randomUUID();
    const until = Date.now() + WAIT_MS;
    for (let wait = 10; ; wait = Math.min(wait * 1.3, 250)) {
      const taken = await this.redis.sendCommand(['SET', key, token, 'NX', 'PX', String(holdMs)]);
      if (taken === 'OK') break;
      if (Date.now() > until)
        throw new McpkitError(
          'IO',
          `the token store's lock ${key} was held for ${WAIT_MS / 1000} s; try again`,
        );
      await sleep(wait);
    }
    try {
      return await work();
    } finally {
      await this.redis.sendCommand(['EVAL', UNLOCK, '1', key, token]).catch(() => undefined);
    }
  }
}

const digest = (url: string) => createHash('sha256').update(url).digest('base64url').slice(0, 22);
