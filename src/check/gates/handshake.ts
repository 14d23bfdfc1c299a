import { type GateContext, median, ms, result } from '../context.js';
import { initializeParams, LEGACY_VERSIONS } from '../probe.js';
import type { GateResult } from '../report.js';
import type { StdioProbe } from '../stdio-probe.js';

const STARTS = 5;

/**
 * Fresh starts: spawn→initialized (stdio) or the initialize round trip (HTTP), p50 of five; then a warm
 * request round trip (ping). Passes when every start answered with a version and server info.
 */
export async function handshakeGate(ctx: GateContext): Promise<GateResult> {
  const startup: number[] = [];
  const roundTrips: number[] = [];
  let version: unknown;
  let serverInfo: unknown;
  for (let i = 0; i < STARTS; i++) {
    const probe = await ctx.open();
    try {
      const sent = performance.now();
      const answer = await probe.request('initialize', initializeParams(LEGACY_VERSIONS[0]), ctx.timeoutMs);
      const done = performance.now();
      if (!answer?.result) {
        return result(
          'handshake',
          'FAIL',
          `start ${i + 1}: ${answer ? 'initialize returned an error' : 'no answer to initialize'}`,
          {
            timeoutMs: ctx.timeoutMs,
            response: answer ?? null,
          },
        );
      }
      version = answer.result.protocolVersion;
      serverInfo = answer.result.serverInfo;
      startup.push(probe.kind === 'stdio' ? done - (probe as StdioProbe).spawnedAt : done - sent);
      await probe.notify('notifications/initialized');
      const pingSent = performance.now();
      if (await ctx.answersPing(probe)) roundTrips.push(performance.now() - pingSent);
    } finally {
      await probe.close();
    }
  }
  const info = serverInfo as { name?: unknown; version?: unknown } | undefined;
  // Numbers for --json readers, the unit in the key; the summary line has the text.
  const startupMs = round(median(startup));
  const pingMs = roundTrips.length > 0 ? round(median(roundTrips)) : null;
  const evidence = {
    [ctx.target.kind === 'stdio' ? 'spawnToInitializedP50Ms' : 'initializeRoundTripP50Ms']: startupMs,
    pingRoundTripP50Ms: pingMs,
    negotiatedVersion: version,
    serverInfo: serverInfo ?? null,
  };
  if (typeof info?.name !== 'string' || info.name === '') {
    return result('handshake', 'FAIL', 'initialize result has no serverInfo.name', evidence);
  }
  if (typeof version !== 'string')
    return result('handshake', 'FAIL', 'initialize result has no protocolVersion', evidence);
  const first = ctx.target.kind === 'stdio' ? 'spawn→initialized' : 'initialize';
  return result(
    'handshake',
    'PASS',
    `${first} p50 ${ms(startupMs)}, ping ${pingMs === null ? 'no answer' : ms(pingMs)}; ${version}; ${info.name} ${String(info.version ?? '')}`.trim(),
    evidence,
  );
}

/** Milliseconds to one decimal, as a number. */
function round(value: number): number {
  return Math.round(value * 10) / 10;
}
