import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTelemetryExport, telemetryWanted } from '../../src/gateway/observers/telemetry-export.js';
import { connectInProcess, startGateway } from '../helpers/gateway.js';
import { everything } from '../helpers/servers.js';

interface Received {
  path: string;
  contentType: string;
  body: Buffer;
  team: string | undefined;
}

/** A plain OTLP/HTTP receiver on 127.0.0.1:0: keeps every export it is sent. */
async function otlpReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
        team: req.headers['x-team'] as string | undefined,
      });
      const json = (req.headers['content-type'] ?? '').includes('json');
      res
        .writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
        .end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type Attr = { key: string; value: Record<string, unknown> };
const attrs = (list: Attr[] | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, Object.values(value)[0]]));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('OpenTelemetry export (OTEL_EXPORTER_OTLP_*)', () => {
  it('is off unless an endpoint is set, and OTEL_SDK_DISABLED wins', () => {
    expect(telemetryWanted({})).toBe(false);
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(telemetryWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x/v1/traces' })).toBe(true);
    expect(
      telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
  });

  it('sends a span per client call with a child per upstream call, and the call metrics, over OTLP/HTTP JSON', async () => {
    const receiver = await otlpReceiver();
    cleanups.push(receiver.close);
    const started = await startGateway([{ name: 'everything', entry: everything }]);
    cleanups.push(started.close);
    const exporting = await startTelemetryExport(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-team=gateway%20ops',
        OTEL_SERVICE_NAME: 'gateway-under-test',
      },
      () => started.gateway.status(),
    );
    started.gateway.calls.subscribe(exporting.telemetry);
    const client = await connectInProcess(started.gateway);
    cleanups.push(client.close);

    await client.client.listTools();
    await client.client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
    await client.client.callTool({ name: 'everything__get-sum', arguments: { a: 'x', b: 2 } });
    await exporting.shutdown();

    const traces = receiver.received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces[0]?.contentType).toContain('application/json');
    expect(traces[0]?.team).toBe('gateway ops');
    const spans = traces.flatMap((t) => {
      const body = JSON.parse(t.body.toString()) as {
        resourceSpans: {
          resource: { attributes: Attr[] };
          scopeSpans: {
            scope: { name: string };
            spans: {
              name: string;
              kind: number;
              spanId: string;
              parentSpanId?: string;
              attributes: Attr[];
              status?: { code?: number };
            }[];
          }[];
        }[];
      };
      return body.resourceSpans.flatMap((rs) => {
        expect(attrs(rs.resource.attributes)['service.name']).toBe('gateway-under-test');
        return rs.scopeSpans.flatMap((ss) => ss.spans);
      });
    });
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [call] = byName('tools/call everything__echo');
    const [upstream] = byName('tools/call echo');
    expect(call?.kind).toBe(2); // server
    expect(upstream?.kind).toBe(3); // client
    expect(upstream?.parentSpanId).toBe(call?.spanId);
    expect(attrs(call?.attributes)).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'everything__echo',
      'mcpkit.server': 'everything',
      'mcpkit.outcome': 'ok',
      'mcpkit.client': 'client:in-process-test@1',
    });
    expect(attrs(upstream?.attributes)['mcp.protocol.version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // Every other request a client makes has its span too.
    const [listing] = byName('tools/list');
    expect(listing?.kind).toBe(2);
    expect(attrs(listing?.attributes)['mcp.method.name']).toBe('tools/list');
    const [failed] = byName('tools/call everything__get-sum');
    expect(attrs(failed?.attributes)['mcpkit.outcome']).toBe('tool-error');
    expect(failed?.status?.code).toBe(2); // error
    // Arguments never reach a span.
    expect(traces.map((t) => t.body.toString()).join('')).not.toContain('"hi"');

    const metrics = receiver.received.filter((r) => r.path === '/v1/metrics');
    expect(metrics.length).toBeGreaterThan(0);
    const names = new Map<string, unknown>();
    for (const m of metrics) {
      const body = JSON.parse(m.body.toString()) as {
        resourceMetrics: {
          scopeMetrics: {
            metrics: {
              name: string;
              sum?: { dataPoints: { asInt?: number; asDouble?: number; attributes: Attr[] }[] };
              histogram?: { dataPoints: { count: number | string; attributes: Attr[] }[] };
            }[];
          }[];
        }[];
      };
      for (const rm of body.resourceMetrics)
        for (const sm of rm.scopeMetrics) for (const metric of sm.metrics) names.set(metric.name, metric);
    }
    expect([...names.keys()].sort()).toEqual([
      'mcpkit.gateway.call.duration',
      'mcpkit.gateway.call.errors',
      'mcpkit.gateway.calls',
      'mcpkit.gateway.upstream.restarts',
    ]);
    const calls = names.get('mcpkit.gateway.calls') as {
      sum: { dataPoints: { asInt?: number; asDouble?: number; attributes: Attr[] }[] };
    };
    const total = calls.sum.dataPoints.reduce((n, p) => n + Number(p.asInt ?? p.asDouble ?? 0), 0);
    expect(total).toBe(2);
    // Only the call that did not end ok counts as an error, under its server and outcome.
    const errors = names.get('mcpkit.gateway.call.errors') as typeof calls;
    expect(
      errors.sum.dataPoints.map((p) => [
        attrs(p.attributes)['mcpkit.server'],
        attrs(p.attributes)['mcpkit.outcome'],
        Number(p.asInt ?? p.asDouble ?? 0),
      ]),
    ).toEqual([['everything', 'tool-error', 1]]);
    const latency = names.get('mcpkit.gateway.call.duration') as {
      histogram: { dataPoints: { count: number | string; attributes: Attr[] }[] };
    };
    expect(latency.histogram.dataPoints.map((p) => attrs(p.attributes)['mcpkit.server'])).toContain(
      'everything',
    );
  }, 60_000);

  it('speaks OTLP/HTTP protobuf by default', async () => {
    const receiver = await otlpReceiver();
    cleanups.push(receiver.close);
    const started = await startGateway([{ name: 'everything', entry: everything }]);
    cleanups.push(started.close);
    const exporting = await startTelemetryExport({ OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/` });
    expect(exporting.protocol).toBe('http/protobuf');
    started.gateway.calls.subscribe(exporting.telemetry);
    const client = await connectInProcess(started.gateway);
    cleanups.push(client.close);
    await client.client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
    await exporting.shutdown();
    const traces = receiver.received.filter((r) => r.path === '/v1/traces');
    expect(traces[0]?.contentType).toBe('application/x-protobuf');
    // Protobuf keeps strings as UTF-8 bytes: the span's name is there as it is.
    expect(Buffer.concat(traces.map((t) => t.body)).includes('tools/call everything__echo')).toBe(true);
    expect(receiver.received.some((r) => r.path === '/v1/metrics')).toBe(true);
  }, 60_000);

  it('keeps the spans OTEL_TRACES_SAMPLER says (always_off: metrics only)', async () => {
    const receiver = await otlpReceiver();
    cleanups.push(receiver.close);
    const started = await startGateway([{ name: 'everything', entry: everything }]);
    cleanups.push(started.close);
    const exporting = await startTelemetryExport({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_TRACES_SAMPLER: 'always_off',
    });
    started.gateway.calls.subscribe(exporting.telemetry);
    const client = await connectInProcess(started.gateway);
    cleanups.push(client.close);
    await client.client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
    await exporting.shutdown();
    expect(receiver.received.filter((r) => r.path === '/v1/traces')).toEqual([]);
    expect(receiver.received.some((r) => r.path === '/v1/metrics')).toBe(true);
  }, 60_000);

  it('refuses a protocol it does not speak, in one line', async () => {
    await expect(
      startTelemetryExport({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).rejects.toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is not supported by mcpkit; use http/protobuf or http/json',
    );
  });
});
