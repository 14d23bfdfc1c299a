import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { McpkitError } from '../errors/index.js';

/** Shortest token accepted: 128 bits of hex (`openssl rand -hex 16`) or more. */
const MIN_TOKEN_LENGTH = 32;
const NAME = /^[A-Za-z0-9._-]{1,64}$/u;

/** How often a token file is checked for changes, at most (a request never waits on more than a stat). */
const RECHECK_MS = 1000;

interface Entry {
  name: string;
  digest: Buffer;
}

/**
 * The bearer tokens an mcpkit HTTP server accepts, each with a name (which client it belongs to). A
 * request's token is compared with every token in constant time — by SHA-256 digest, so lengths do not
 * leak either — and only the name of the match is ever passed on; tokens never reach a log or an error.
 *
 * A token file has one `name:token` per line; blank lines and `#` comments are skipped. It is re-read when it
 * changes (checked at most once a second), so tokens rotate without a restart; a change that no longer
 * parses keeps the tokens in force and reports the problem once through `onReloadError`.
 */
export class BearerTokens {
  private entries: Entry[];
  private checkedAt = 0;
  private fileStamp = '';

  private constructor(
    entries: Entry[],
    private readonly file?: string,
    private readonly onReloadError?: (error: Error) => void,
  ) {
    this.entries = entries;
    if (file) this.fileStamp = stamp(file);
  }

  /** Tokens from `name:token` lines; `source` names where they came from in errors. */
  static parse(text: string, source: string): BearerTokens {
    return new BearerTokens(parseEntries(text, source));
  }

  /** Tokens from a file of `name:token` lines, re-read when it changes. */
  static fromFile(path: string, onReloadError?: (error: Error) => void): BearerTokens {
    return new BearerTokens(parseEntries(readTokenFile(path), path), path, onReloadError);
  }

  /** One token under one name (e.g. from an environment variable). */
  static single(name: string, token: string, source: string): BearerTokens {
    return new BearerTokens(parseEntries(`${name}:${token}`, source));
  }

  /** The names of the accepted tokens, in file order. */
  get names(): string[] {
    return this.entries.map((entry) => entry.name);
  }

  /**
   * The name of the token an `Authorization: Bearer …` header carries, or undefined when it carries none
   * of ours. Every token is compared, match or not, so the time taken does not say which one came close.
   */
  match(authorization: string | null | undefined): string | undefined {
    this.reloadIfChanged();
    const presented = /^Bearer[ \t]+(\S+)[ \t]*$/iu.exec(authorization ?? '')?.[1];
    if (presented === undefined) return undefined;
    const digest = sha256(presented);
    let found: string | undefined;
    for (const entry of this.entries) if (timingSafeEqual(digest, entry.digest)) found ??= entry.name;
    return found;
  }

  private reloadIfChanged(): void {
    if (!this.file || Date.now() - this.checkedAt < RECHECK_MS) return;
    this.checkedAt = Date.now();
    const now = stamp(this.file);
    if (now === this.fileStamp) return;
    this.fileStamp = now;
    try {
      this.entries = parseEntries(readTokenFile(this.file), this.file);
    } catch (error) {
      this.onReloadError?.(error as Error);
    }
  }
}

function parseEntries(text: string, source: string): Entry[] {
  const entries: Entry[] = [];
  const lines = text.split(/\r?\n/u);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const where = `${source}:${index + 1}`;
    const colon = line.indexOf(':');
    if (colon === -1) throw invalid(`${where}: expected "name:token"`);
    const name = line.slice(0, colon).trim();
    const token = line.slice(colon + 1).trim();
    if (!NAME.test(name))
      throw invalid(
        `${where}: the name must be 1-64 letters, digits, ".", "_" or "-" (got "${name.slice(0, 64)}")`,
      );
    // The token itself is never quoted back: only what is wrong with it.
    if (token.length < MIN_TOKEN_LENGTH || /\s/u.test(token))
      throw invalid(
        `${where}: the token of "${name}" must be at least ${MIN_TOKEN_LENGTH} characters without spaces (make one with: openssl rand -hex 32)`,
      );
    if (entries.some((entry) => entry.name === name)) throw invalid(`${where}: "${name}" is named twice`);
    entries.push({ name, digest: sha256(token) });
  }
  if (entries.length === 0) throw invalid(`${source}: no tokens (one "name:token" per line)`);
  return entries;
}

function readTokenFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new McpkitError('IO', `cannot read the token file ${path} (${code ?? (error as Error).message})`, {
      cause: error,
    });
  }
}

/** A token file readable by group or others: worth one warning line (the tokens admit to the server). */
export function tokenFileExposure(path: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) === 0) return undefined;
    return `the token file ${path} is readable by others (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 ${path}`;
  } catch {
    return undefined;
  }
}

function stamp(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return 'missing';
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function invalid(message: string): McpkitError {
  return new McpkitError('CONFIG_INVALID', message);
}
