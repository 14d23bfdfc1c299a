import { watch } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { userConfigDir } from '../../config/index.js';
import { McpkitError } from '../../errors/index.js';
import { withFileLock } from '../../internal/file-lock.js';
import { readTextIfExists, writeFileAtomic } from '../../internal/text-file.js';
import type { StoredDpopKey } from './dpop-key.js';

/** Tokens as stored: the SDK's, with the absolute expiry (`expires_in` alone is useless once saved). */
export interface SavedTokens extends StoredOAuthTokens {
  /** When the access token expires, in milliseconds since the epoch. */
  expires_at?: number;
}

/** What one authorization server issued for a server: the client registered there and the tokens. */
export interface IssuerRecord {
  client?: StoredOAuthClientInformation;
  tokens?: SavedTokens;
}

/** Everything kept for one remote server, keyed by its URL. */
export interface ServerAuthRecord {
  /** The server's URL (the key). */
  url: string;
  /** The server's name when it was last logged in to (for `mcpkit auth status`). */
  name?: string;
  /** The authorization server that issued the current tokens. */
  issuer?: string;
  /** Per authorization server: a client id is only valid where it was issued. */
  issuers: Record<string, IssuerRecord>;
  /** Discovery results (resource and authorization-server metadata), so a refresh needs no discovery. */
  discovery?: OAuthDiscoveryState;
  /** The RFC 8707 resource the tokens were issued for. */
  resource?: string;
  /** The DPoP key the tokens are bound to (RFC 9449), when the authorization server uses DPoP. */
  dpopKey?: StoredDpopKey;
}

/**
 * Where OAuth state lives. One store is shared by every mcpkit process of a user (the gateway and the CLI):
 * `update` is atomic across processes, `exclusive` serialises the work of a refresh.
 */
export interface TokenStore {
  /** Where it is, for `mcpkit auth status` ("file ~/.config/mcpkit/oauth.json"). */
  readonly location: string;
  read(url: string): Promise<ServerAuthRecord | undefined>;
  list(): Promise<ServerAuthRecord[]>;
  /** Reads, changes and writes one record under the store's lock; `undefined` from `change` deletes it. */
  update(
    url: string,
    change: (current: ServerAuthRecord) => ServerAuthRecord | undefined,
  ): Promise<ServerAuthRecord | undefined>;
  /** Runs `work` while no other process runs exclusive work on the same server (one refresh at a time). */
  exclusive<T>(url: string, work: () => Promise<T>): Promise<T>;
  /** A value that changes whenever the stored data does (to notice a login made by another process). */
  version(): Promise<string>;
  /** Calls `onChange` after the store changed (any process); returns the function that stops watching. */
  watch?(onChange: () => void): () => void;
}

interface StoreFile {
  version: 1;
  servers: Record<string, ServerAuthRecord>;
}

/**
 * A lock older than 15 s belongs to a process that died holding it; a waiter gives up after 45 s (a
 * refresh at the authorization server takes seconds). A lock taken over from a holder that stalled past
 * the stale time does no harm: the store's writes stay atomic.
 */
const LOCK_OPTIONS = { staleMs: 15_000, timeoutMs: 45_000 };

/**
 * The token store as one JSON file, `oauth.json` in the user config dir: mode 0600, written atomically
 * (temp file + rename), updated under a lock file so two processes never lose each other's writes.
 */
export class FileTokenStore implements TokenStore {
  readonly location: string;
  private cache: { stamp: string; data: StoreFile } | undefined;

  constructor(readonly file: string) {
    this.location = `file ${file}`;
  }

  /** The store of the user config dir (`$MCPKIT_CONFIG_DIR`, else `~/.config/mcpkit`). */
  static forUser(env: Readonly<Record<string, string | undefined>> = process.env): FileTokenStore {
    return new FileTokenStore(join(userConfigDir(env), 'oauth.json'));
  }

  async read(url: string): Promise<ServerAuthRecord | undefined> {
    return (await this.load()).servers[url];
  }

  async list(): Promise<ServerAuthRecord[]> {
    return Object.values((await this.load()).servers);
  }

  async version(): Promise<string> {
    return this.stamp();
  }

  async update(
    url: string,
    change: (current: ServerAuthRecord) => ServerAuthRecord | undefined,
  ): Promise<ServerAuthRecord | undefined> {
    return this.locked(this.file, async () => {
      const data = await this.load();
      const current = data.servers[url];
      const next = change(structuredClone(current ?? { url, issuers: {} }));
      // Nothing changed, nothing written: watchers (a gateway waiting for a login) see only real changes.
      if (JSON.stringify(next) === JSON.stringify(current)) return next;
      if (next) data.servers[url] = next;
      else delete data.servers[url];
      await writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
      this.cache = undefined;
      return next;
    });
  }

  async exclusive<T>(url: string, work: () => Promise<T>): Promise<T> {
    const key = Buffer.from(url).toString('base64url').slice(0, 80);
    return this.locked(`${this.file}.${key}.refresh`, work);
  }

  /** `work` while holding `<target>.lock` (a lock of its own per target, so a refresh and a write can overlap). */
  private async locked<T>(target: string, work: () => Promise<T>): Promise<T> {
    let locking = true;
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      return await withFileLock(target, LOCK_OPTIONS, () => {
        locking = false;
        return work();
      });
    } catch (cause) {
      if (!locking) throw cause;
      throw new McpkitError('IO', `cannot lock the token store ${this.file}: ${(cause as Error).message}`, {
        cause,
        file: this.file,
      });
    }
  }

  watch(onChange: () => void): () => void {
    const dir = dirname(this.file);
    const name = basename(this.file);
    let timer: NodeJS.Timeout | undefined;
    let watcher: ReturnType<typeof watch> | undefined;
    let stopped = false;
    let last: string | undefined;
    // A write is a temp file renamed over the store: several events, one change.
    const changed = () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const stamp = await this.stamp();
        if (stamp === last || stopped) return;
        last = stamp;
        onChange();
      }, 50);
    };
    void this.stamp().then((stamp) => {
      last = stamp;
    });
    void mkdir(dir, { recursive: true, mode: 0o700 })
      .then(() => {
        if (stopped) return;
        watcher = watch(dir, (_event, file) => {
          if (file === name) changed();
        });
        watcher.on('error', () => undefined);
      })
      .catch(() => undefined);
    return () => {
      stopped = true;
      clearTimeout(timer);
      watcher?.close();
    };
  }

  private async stamp(): Promise<string> {
    return stat(this.file).then(
      (s) => `${s.mtimeMs}:${s.size}:${s.ino}`,
      () => 'none',
    );
  }

  private async load(): Promise<StoreFile> {
    const stamp = await this.stamp();
    if (this.cache?.stamp === stamp) return structuredClone(this.cache.data);
    const text = await readTextIfExists(this.file);
    let data: StoreFile = { version: 1, servers: {} };
    if (text !== undefined) {
      try {
        const parsed = JSON.parse(text) as Partial<StoreFile>;
        if (parsed && typeof parsed.servers === 'object' && parsed.servers !== null)
          data = { version: 1, servers: parsed.servers };
      } catch {
        // A damaged store is a lost login, not a crash: the next login writes a good one.
      }
    }
    this.cache = { stamp, data };
    return structuredClone(data);
  }
}

/** The tokens a record holds now: those of its current authorization server. */
export function currentTokens(record: ServerAuthRecord | undefined): SavedTokens | undefined {
  if (!record?.issuer) return undefined;
  return record.issuers[record.issuer]?.tokens;
}
