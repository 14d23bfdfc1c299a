import {
  type Attributes,
  context,
  type Histogram,
  type Meter,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { PACKAGE_VERSION } from '../../internal/package-version.js';
import type { CallObserver, CallOutcome, CallRecord, RequestRecord } from './call-events.js';

/** The instrumentation scope of the gateway's spans and metrics. */
export const TELEMETRY_SCOPE = 'mcpkit-gateway';

interface Spans {
  call: Span;
  upstream?: Span | undefined;
}

/** The calls of one server and outcome so far, and the attributes their metric points carry. */
interface Tally {
  attributes: Attributes;
  calls: number;
}

/**
 * The gateway's OpenTelemetry instrumentation, on `@opentelemetry/api` alone: a span per tool call a client
 * makes (`tools/call <tool>`, kind server) with a child per call relayed to an upstream (kind client), and
 * four metrics — calls, errors and the latency histogram per server and outcome, and upstream restarts.
 * Attributes follow the MCP semantic conventions (`mcp.method.name`, `gen_ai.tool.name`,
 * `mcp.protocol.version`) plus `mcpkit.server` and `mcpkit.outcome`. Arguments and results are never
 * recorded. Without a tracer and meter it uses the global ones (no-ops until an SDK is registered).
 */
export class CallTelemetry implements CallObserver {
  private readonly tracer: Tracer;
  private readonly latency: Histogram;
  /**
   * Calls and errors are counted here and read when metrics are collected (observable counters): a
   * synchronous counter would cost the SDK an attribute hash and lookup per call, twice.
   */
  private readonly tallies = new Map<string, Tally>();

  constructor(
    options: {
      tracer?: Tracer;
      meter?: Meter;
      /** Each upstream's restarts so far, read when metrics are collected. */
      restarts?: () => readonly { name: string; restarts: number }[];
    } = {},
  ) {
    this.tracer = options.tracer ?? trace.getTracer(TELEMETRY_SCOPE, PACKAGE_VERSION);
    const meter = options.meter ?? metrics.getMeter(TELEMETRY_SCOPE, PACKAGE_VERSION);
    meter
      .createObservableCounter('mcpkit.gateway.calls', { description: 'Tool calls served' })
      .addCallback((result) => {
        for (const tally of this.tallies.values()) result.observe(tally.calls, tally.attributes);
      });
    meter
      .createObservableCounter('mcpkit.gateway.call.errors', {
        description: 'Tool calls that did not end ok',
      })
      .addCallback((result) => {
        for (const tally of this.tallies.values())
          if (tally.attributes['mcpkit.outcome'] !== 'ok') result.observe(tally.calls, tally.attributes);
      });
    this.latency = meter.createHistogram('mcpkit.gateway.call.duration', {
      description: 'How long tool calls took',
      unit: 'ms',
    });
    const restarts = options.restarts;
    if (restarts)
      meter
        .createObservableCounter('mcpkit.gateway.upstream.restarts', {
          description: 'Restarts of upstream servers after a crash',
        })
        .addCallback((result) => {
          for (const { name, restarts: n } of restarts()) result.observe(n, { 'mcpkit.server': name });
        });
  }

  started(call: CallRecord): void {
    const span = this.tracer.startSpan(`tools/call ${call.name}`, {
      kind: SpanKind.SERVER,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': call.name,
        ...(call.client === undefined ? {} : { 'mcpkit.client': call.client }),
        ...(call.profile === undefined ? {} : { 'mcpkit.profile': call.profile }),
      },
    });
    call.marks.set(this, { call: span } satisfies Spans);
  }

  upstreamStarted(call: CallRecord): void {
    const spans = call.marks.get(this) as Spans | undefined;
    if (!spans) return;
    const parent = trace.setSpan(context.active(), spans.call);
    spans.upstream = this.tracer.startSpan(
      `tools/call ${call.tool}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': call.tool ?? call.name,
          'mcpkit.server': call.server ?? '',
          ...(call.protocolVersion === undefined ? {} : { 'mcp.protocol.version': call.protocolVersion }),
        },
      },
      parent,
    );
  }

  upstreamEnded(call: CallRecord, outcome: CallOutcome): void {
    const spans = call.marks.get(this) as Spans | undefined;
    if (!spans?.upstream) return;
    finish(spans.upstream, outcome);
    spans.upstream = undefined;
  }

  ended(call: CallRecord): void {
    const spans = call.marks.get(this) as Spans | undefined;
    const outcome = call.outcome ?? 'failed';
    if (spans) {
      const span = spans.call;
      if (call.server !== undefined) span.setAttribute('mcpkit.server', call.server);
      if (call.protocolVersion !== undefined) span.setAttribute('mcp.protocol.version', call.protocolVersion);
      if (outcome === 'protocol-error' && call.error !== undefined)
        span.setAttribute('error.type', 'protocol');
      finish(span, outcome);
    }
    const tally = this.tally(call.server ?? '', outcome);
    tally.calls++;
    this.latency.record(call.durationMs ?? 0, tally.attributes);
  }

  private tally(server: string, outcome: CallOutcome): Tally {
    const key = `${outcome} ${server}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = { attributes: { 'mcpkit.server': server, 'mcpkit.outcome': outcome }, calls: 0 };
      this.tallies.set(key, tally);
    }
    return tally;
  }

  requestEnded(request: RequestRecord): void {
    const span = this.tracer.startSpan(request.method, {
      kind: SpanKind.SERVER,
      startTime: request.startedAt,
      attributes: { 'mcp.method.name': request.method },
    });
    if (request.outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(request.startedAt + request.durationMs);
  }
}

function finish(span: Span, outcome: CallOutcome): void {
  span.setAttribute('mcpkit.outcome', outcome);
  if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
  span.end();
}
