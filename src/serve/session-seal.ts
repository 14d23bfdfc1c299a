import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { McpkitError } from '../errors/index.js';

/** What a 2025 session needs to be rebuilt on any replica: its `initialize` request's params. */
export interface SealedSession {
  /** The `initialize` params as the client sent them (protocolVersion, capabilities, clientInfo). */
  init: Record<string, unknown>;
  /** When the session was opened (ms since the epoch). */
  issuedAt: number;
}

const PREFIX = 's1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A sealed id older than this is refused (a session id is a bearer of its session: it must not live forever). */
export const SEALED_SESSION_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Authenticated encryption (AES-256-GCM) under a key derived from the operator's secret for one purpose,
 * so one secret serves several uses without one's ciphertext opening as another's. Output: base64url of
 * IV, ciphertext and tag.
 */
export class SecretBox {
  private readonly key: Buffer;

  /** `secret`: at least 32 bytes of key material (a file's content, an env value); `purpose` names the use. */
  constructor(secret: string | Buffer, purpose: string) {
    const material = typeof secret === 'string' ? Buffer.from(secret.trim()) : secret;
    if (material.length < 32)
      throw new McpkitError(
        'INVALID_ARGUMENT',
        `the session key is ${material.length} bytes; it needs at least 32 (make one with \`openssl rand -hex 32\`)`,
      );
    this.key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), purpose, 32));
  }

  seal(text: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The text sealed; undefined for anything this key did not seal, or that was altered. */
  open(sealed: string): string | undefined {
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/**
 * Session ids that carry their session: the `initialize` params sealed with AES-256-GCM under a key every
 * replica shares, so any replica behind a load balancer can rebuild a session it never saw, with no lookup
 * (agentgateway's way). Authenticated: an id not made with the key, or altered, opens to nothing.
 */
export class SessionSeal {
  private readonly box: SecretBox;

  /** `secret`: at least 32 bytes of the operator's key material (a file's content, an env value). */
  constructor(secret: string | Buffer) {
    this.box = new SecretBox(secret, 'mcpkit session seal v1');
  }

  /** Reads the key from a file (its content, surrounding whitespace ignored). */
  static async fromFile(file: string): Promise<SessionSeal> {
    const text = await readFile(file, 'utf8').catch((cause: NodeJS.ErrnoException) => {
      throw new McpkitError(
        'INVALID_ARGUMENT',
        `cannot read the session key ${file}: ${cause.code ?? cause.message}`,
        { cause },
      );
    });
    return new SessionSeal(text);
  }

  /** A new session id holding `init`. */
  seal(init: Record<string, unknown>, now = Date.now()): string {
    return PREFIX + this.box.seal(JSON.stringify({ i: init, t: now }));
  }

  /** The session an id holds; undefined for an id this key did not seal, or one past its age. */
  open(id: string, now = Date.now()): SealedSession | undefined {
    if (!id.startsWith(PREFIX)) return undefined;
    const text = this.box.open(id.slice(PREFIX.length));
    if (text === undefined) return undefined;
    try {
      const parsed = JSON.parse(text) as { i?: unknown; t?: unknown };
      if (typeof parsed.t !== 'number' || typeof parsed.i !== 'object' || parsed.i === null) return undefined;
      if (now - parsed.t > SEALED_SESSION_MAX_AGE_MS) return undefined;
      return { init: parsed.i as Record<string, unknown>, issuedAt: parsed.t };
    } catch {
      return undefined;
    }
  }
}

/** A short stable name for a session id, for store keys and logs (the id itself admits to the session). */
export function sessionKey(id: string): string {
  return createHash('sha256').update(id).digest('base64url').slice(0, 22);
}
