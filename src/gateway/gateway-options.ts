import type { McpServerFactory } from '@modelcontextprotocol/server';
import type { TokenStore } from '../client/index.js';
import type { Profile } from '../config/index.js';
import type { FrameIntercept } from '../serve/index.js';
import type { Catalog, PrefixMode } from './catalog.js';
import type { PinBackend, PinMode } from './pins.js';
import type { ResultStoreLimits } from './result-store.js';
import type { UpstreamsOptions } from './upstreams.js';

/** Options for {@link Gateway.create}: the upstream settings of {@link UpstreamsOptions}, and these. */
export interface GatewayOptions extends Omit<UpstreamsOptions, 'handlers' | 'log'> {
  /** `server` (default): tools and prompts are `<server>__<name>`; `none`: names kept (must not clash). */
  prefix?: PrefixMode;
  /**
   * Deferred tools: with more tools than this, tools/list shows only `tool_search` and `call_tool` (and
   * what a client's searches found). Default: never — every tool is listed, because clients that check a
   * call against the listing (the SDK v2 client, MCP Inspector 2.x, the Python client) refuse or warn on a
   * tool they were not shown, and clients with many tools defer on their side (Claude Code's tool search).
   */
  deferThreshold?: number;
  /** Tool pinning: `warn` (default) logs a changed definition, `strict` hides the tool, `off` skips it. */
  pin?: PinMode;
  /** Where pins are kept; default `<user config dir>/pins.json`. */
  pinFile?: string;
  /** Where pins are kept instead of a file (replicas share one: `RedisPins`). */
  pinStore?: PinBackend;
  /** Where OAuth logins of remote upstreams are kept (default: the user's file store; replicas: `RedisTokenStore`). */
  tokenStore?: TokenStore;
  /** Tells other replicas what tool_search revealed to a client (`shareRevealed` wires it to Redis). */
  shareRevealed?: (identity: string, names: string[]) => void;
  /**
   * Where the finished tasks the gateway ran for its clients are kept across restarts; default
   * `<user config dir>/gateway-tasks.json`.
   */
  taskFile?: string;
  /**
   * Servers whose tools are never pinned: those that ship with mcpkit (the built-in code search), whose
   * definitions change with mcpkit's own version, not behind the user's back.
   */
  unpinned?: readonly string[];
  /** Named tool sets (a config file's `profiles`), each servable on its own ({@link Gateway.profile}). */
  profiles?: Readonly<Record<string, Profile>>;
  /**
   * The profile `factory` and `intercept()` serve (`mcpkit gateway --profile`); default every tool. An
   * unknown name fails `create` with INVALID_ARGUMENT naming the profiles there are.
   */
  profile?: string;
  /** Keep a Markdown index of every tool in this file. */
  toolIndexFile?: string;
  /** Diagnostics (default: stderr, prefixed `mcpkit gateway:`). */
  log?: (message: string) => void;
  /**
   * How long a 2026-07-28 client has to come back with the answers a 2025 upstream asked for mid-call
   * (an `input_required` round) before the gateway cancels that call; default 5 min.
   */
  inputRoundTimeoutMs?: number;
  /**
   * A tool result whose text is over this many tokens (estimated: characters / 4) is cut at a line boundary,
   * with a note; the whole is kept for the client to read as `mcpkit://results/<id>`. Default 25,000 (the cap
   * Claude Code applies); 0 turns it off.
   */
  maxResultTokens?: number;
  /** How many cut results are kept, and for how long (default 100, 64 Mi characters, 30 min). */
  resultStore?: ResultStoreLimits;
}

/** One profile of a gateway, served on its own endpoint (see {@link Gateway.profile}). */
export interface GatewayProfile {
  name: string;
  /** Serves this profile's tools only: its listing, `tool_search` index and pins. */
  factory: McpServerFactory;
  /** The hot path of this profile's clients (see {@link Gateway.intercept}). */
  intercept(): FrameIntercept;
  /** The catalog as this profile shows it. */
  catalog(): Promise<Catalog>;
}
