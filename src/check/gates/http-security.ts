import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type GateContext, result } from '../context.js';
import { HttpProbe } from '../http-probe.js';
import { initializeParams, LEGACY_VERSIONS } from '../probe.js';
import type { GateResult } from '../report.js';

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

/**
 * DNS-rebinding protection (a local server refuses a foreign Host or Origin) and 2025 sessions: an id is
 * issued, a request without it or with an unknown one is refused (400 / 404), DELETE ends the session.
 */
export async function httpSecurityGate(ctx: GateContext): Promise<GateResult> {
  if (ctx.target.kind !== 'http') return result('http-security', 'SKIP', 'not an HTTP server');
  const url = new URL(ctx.target.url);
  const headers = ctx.target.headers ?? {};
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: initializeParams(LEGACY_VERSIONS[0]),
  });
  const checks: { name: string; ok: boolean; detail: string }[] = [];
  const refused = (status: number) => status >= 400 && status < 500;

  if (LOOPBACK.test(url.hostname)) {
    const host = await rawPost(url, init, { ...headers, host: 'evil.example' }, ctx.timeoutMs);
    checks.push({
      name: 'foreign Host refused',
      ok: refused(host),
      detail: `Host: evil.example → HTTP ${host}`,
    });
    const origin = await rawPost(url, init, { ...headers, origin: 'http://evil.example' }, ctx.timeoutMs);
    checks.push({
      name: 'foreign Origin refused',
      ok: refused(origin),
      detail: `Origin: http://evil.example → HTTP ${origin}`,
    });
  } else {
    checks.push({ name: 'DNS-rebinding checks', ok: true, detail: 'skipped: not a loopback server' });
  }

  const probe = new HttpProbe(ctx.target.url, headers);
  const first = await probe.post(init);
  const session = first.headers.get('mcp-session-id');
  if (!session) {
    checks.push({
      name: 'session',
      ok: true,
      detail: `no Mcp-Session-Id issued (stateless server), HTTP ${first.status}`,
    });
  } else {
    checks.push({
      name: 'session id issued',
      ok: true,
      detail: session.length > 12 ? `${session.slice(0, 8)}…` : session,
    });
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const version = String(first.messages[0]?.result?.protocolVersion ?? LEGACY_VERSIONS[0]);
    const base = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
    };
    const missing = await probe.exchange('POST', ping, { ...base }, ctx.timeoutMs);
    checks.push({
      name: 'request without session refused',
      ok: missing.status === 400,
      detail: `HTTP ${missing.status} (expected 400)`,
    });
    const unknown = await probe.exchange(
      'POST',
      ping,
      { ...base, 'mcp-session-id': 'mcpkit-check-unknown' },
      ctx.timeoutMs,
    );
    checks.push({
      name: 'unknown session → 404',
      ok: unknown.status === 404,
      detail: `HTTP ${unknown.status} (expected 404)`,
    });
    const end = await probe.exchange(
      'DELETE',
      undefined,
      { ...base, 'mcp-session-id': session },
      ctx.timeoutMs,
    );
    const after = await probe.exchange('POST', ping, { ...base, 'mcp-session-id': session }, ctx.timeoutMs);
    checks.push({
      name: 'DELETE ends the session',
      ok: end.status >= 200 && end.status < 300 && after.status === 404,
      detail: `DELETE → HTTP ${end.status}; then the old session → HTTP ${after.status} (expected 404)`,
    });
  }
  const evidence = Object.fromEntries(checks.map((c) => [c.name, `${c.ok ? 'ok' : 'FAILED'}: ${c.detail}`]));
  const failed = checks.filter((c) => !c.ok);
  if (failed.length > 0)
    return result('http-security', 'FAIL', failed.map((c) => c.name).join('; '), evidence);
  return result('http-security', 'PASS', checks.map((c) => c.name).join(', '), evidence);
}

/** A POST with exactly these headers (fetch may not set Host); resolves the status, 0 on network failure. */
function rawPost(
  url: URL,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<number> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(body);
  });
}
