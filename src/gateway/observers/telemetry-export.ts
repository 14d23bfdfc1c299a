import { McpkitError } from '../../errors/index.js';
import { PACKAGE_VERSION } from '../../internal/package-version.js';
import { CallTelemetry, TELEMETRY_SCOPE } from './telemetry.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A started OTLP export: the instrumentation to subscribe, and how to flush and stop it. */
export interface TelemetryExport {
  telemetry: CallTelemetry;
  /** `http/protobuf` or `http/json`. */
  protocol: string;
  /** Exports what is pending and stops (spans and a last collection of metrics). */
  shutdown(): Promise<void>;
}

/** True when the standard `OTEL_EXPORTER_OTLP_*` variables ask for an export (and `OTEL_SDK_DISABLED` does not forbid it). */
export function telemetryWanted(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT ||
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
      env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
  );
}

/**
 * Starts exporting the gateway's spans and metrics over OTLP/HTTP as the standard environment says
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `…_TRACES_ENDPOINT`, `…_METRICS_ENDPOINT`, `…_HEADERS`, `…_PROTOCOL`
 * `http/protobuf` (default) or `http/json`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_TRACES_SAMPLER` and `…_ARG`). The SDK and exporters are imported here, only when an export is asked
 * for; the providers are the gateway's own (not registered globally), so an embedder's setup stays its own.
 */
export async function startTelemetryExport(
  env: Env,
  restarts?: () => readonly { name: string; restarts: number }[],
): Promise<TelemetryExport> {
  const traces = protocolOf(env, 'TRACES');
  const metricsProtocol = protocolOf(env, 'METRICS');
  const [traceSdk, { MeterProvider, PeriodicExportingMetricReader }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/resources'),
  ]);
  const { OTLPTraceExporter } =
    traces === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  const { OTLPMetricExporter } =
    metricsProtocol === 'http/json'
      ? await import('@opentelemetry/exporter-metrics-otlp-http')
      : await import('@opentelemetry/exporter-metrics-otlp-proto');
  const resource = resources
    .resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || TELEMETRY_SCOPE,
      'service.version': PACKAGE_VERSION,
    })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const { TracerProvider, BatchSpanProcessor } = traceSdk;
  const tracerProvider = new TracerProvider({
    resource,
    sampler: samplerOf(env, traceSdk),
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter(exporterConfig(env, 'TRACES')) }),
    ],
  });
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(exporterConfig(env, 'METRICS')),
        exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
      }),
    ],
  });
  const telemetry = new CallTelemetry({
    tracer: tracerProvider.getTracer(TELEMETRY_SCOPE, PACKAGE_VERSION),
    meter: meterProvider.getMeter(TELEMETRY_SCOPE, PACKAGE_VERSION),
    ...(restarts ? { restarts } : {}),
  });
  return {
    telemetry,
    protocol: traces,
    shutdown: async () => {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/**
 * Where one signal goes and with which headers, from `env` (the exporters would read only `process.env`):
 * `OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT` as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/<signal>`; the
 * general headers, overridden by the signal's.
 */
function exporterConfig(
  env: Env,
  signal: 'TRACES' | 'METRICS',
): { url?: string; headers?: Record<string, string> } {
  const own = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`];
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = own || (base ? `${base.replace(/\/+$/u, '')}/v1/${signal.toLowerCase()}` : undefined);
  const headers = {
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
    ...parseHeaders(env[`OTEL_EXPORTER_OTLP_${signal}_HEADERS`]),
  };
  return { ...(url ? { url } : {}), ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

/** `key=value,key2=value2`, percent-decoded (the OTLP exporter spec's format). */
function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    try {
      headers[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      // A malformed escape: that header is left out, the rest still apply.
    }
  }
  return headers;
}

/**
 * `OTEL_TRACES_SAMPLER` (`always_on`, `always_off`, `traceidratio`, `parentbased_*`) with
 * `OTEL_TRACES_SAMPLER_ARG` (the ratio, default 1): a busy gateway keeps a fraction of its spans. Default
 * `parentbased_always_on`, the SDK's.
 */
function samplerOf(env: Env, sdk: typeof import('@opentelemetry/sdk-trace')) {
  const name = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  const root = name.endsWith('always_off')
    ? new sdk.AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new sdk.TraceIdRatioBasedSampler(ratio)
      : new sdk.AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root }) : root;
}

/** The OTLP protocol for one signal: its own variable, else the general one, else `http/protobuf`. */
function protocolOf(env: Env, signal: 'TRACES' | 'METRICS'): 'http/protobuf' | 'http/json' {
  const given = (
    env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    ''
  ).trim();
  if (given === '' || given === 'http/protobuf') return 'http/protobuf';
  if (given === 'http/json') return 'http/json';
  throw new McpkitError(
    'INVALID_ARGUMENT',
    `OTEL_EXPORTER_OTLP_PROTOCOL "${given}" is not supported by mcpkit; use http/protobuf or http/json`,
  );
}
