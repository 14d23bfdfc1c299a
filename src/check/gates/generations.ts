import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/client';
import { type GateContext, result } from '../context.js';
import { CHECK_CLIENT, initializeParams, LEGACY_VERSIONS, MODERN_VERSION } from '../probe.js';
import type { GateResult } from '../report.js';

/**
 * Which protocol generations the server speaks: 2026-07-28 through `server/discover` and a stateless
 * request, each 2025 version through `initialize`; an unknown version must get a supported one back or a
 * proper error, and the server must keep working.
 */
export async function generationsGate(ctx: GateContext): Promise<GateResult> {
  const speaks: string[] = [];
  const evidence: Record<string, unknown> = {};

  const modern = await ctx.open();
  try {
    // Every 2026 request carries the envelope: version, client info and capabilities in `_meta`.
    const meta = {
      [PROTOCOL_VERSION_META_KEY]: MODERN_VERSION,
      [CLIENT_INFO_META_KEY]: CHECK_CLIENT,
      [CLIENT_CAPABILITIES_META_KEY]: {},
    };
    const discover = await modern.request('server/discover', { _meta: meta }, ctx.timeoutMs);
    const versions = (discover?.result?.supportedVersions ?? []) as unknown[];
    if (versions.includes(MODERN_VERSION)) {
      // A stateless request: no initialize, no session, just the envelope.
      const capabilities = (discover?.result?.capabilities ?? {}) as Record<string, unknown>;
      const kind = ['tools', 'resources', 'prompts'].find((c) => capabilities[c] !== undefined);
      const stateless = kind
        ? await modern.request(`${kind}/list`, { _meta: meta }, ctx.timeoutMs)
        : discover;
      const what = kind ? `a stateless ${kind}/list` : 'no list to request';
      evidence.modern = stateless?.result
        ? `server/discover and ${what} answered`
        : `server/discover answered; ${what} failed: ${JSON.stringify(stateless?.error ?? 'no answer')}`;
      if (stateless?.result) speaks.push(MODERN_VERSION);
    } else {
      evidence.modern = discover?.error
        ? `server/discover answered ${discover.error.code} (${discover.error.message})`
        : modern.alive()
          ? 'no answer to server/discover'
          : 'the process exited on server/discover (a request before initialize)';
    }
  } finally {
    await modern.close();
  }

  for (const version of LEGACY_VERSIONS) {
    const probe = await ctx.open();
    try {
      const answer = await probe.request('initialize', initializeParams(version), ctx.timeoutMs);
      const got = answer?.result?.protocolVersion;
      if (got === version) speaks.push(version);
      evidence[version] = answer?.result
        ? `answered ${String(got)}`
        : answer?.error
          ? `error ${answer.error.code}`
          : 'no answer';
    } finally {
      await probe.close();
    }
  }

  const probe = await ctx.open();
  let unknownHandled = false;
  try {
    const answer = await probe.request('initialize', initializeParams('1999-01-01'), ctx.timeoutMs);
    const offered = answer?.result?.protocolVersion;
    if (answer?.error) {
      unknownHandled = true;
      evidence.unknownVersion = `error ${answer.error.code}: ${answer.error.message}`;
    } else if (
      typeof offered === 'string' &&
      [...LEGACY_VERSIONS, MODERN_VERSION].includes(offered as never)
    ) {
      await probe.notify('notifications/initialized');
      unknownHandled = await ctx.answersPing(probe);
      evidence.unknownVersion = `offered ${offered}${unknownHandled ? ', then answered ping' : ', then stopped answering'}`;
    } else {
      evidence.unknownVersion = answer ? `answered an unsupported version ${String(offered)}` : 'no answer';
    }
  } finally {
    await probe.close();
  }
  evidence.speaks = speaks;
  if (speaks.length === 0)
    return result('generations', 'FAIL', 'speaks no protocol version mcpkit knows', evidence);
  if (!unknownHandled)
    return result('generations', 'FAIL', 'an unknown protocol version is not handled', evidence);
  return result(
    'generations',
    'PASS',
    `speaks ${speaks.join(', ')}; unknown version: ${String(evidence.unknownVersion)}`,
    evidence,
  );
}
