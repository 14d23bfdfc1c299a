import { resolve } from 'node:path';
import { AuditLog, Dashboard, type Gateway, type LogBuffer, telemetryWanted } from '../gateway/index.js';
import type { HttpPages } from '../serve/http-pages.js';
import type { CliIO } from './io.js';

/** The gateway flags this file reads. */
export interface ObserverFlags {
  transport?: 'stdio' | 'http' | 'sse';
  audit?: string;
  dashboard: boolean;
  dashboardPayloads?: boolean;
}

/** What watches a running gateway's calls: the audit log, OTLP export, the dashboard. */
export interface GatewayObservers {
  /** The dashboard, to serve beside the MCP endpoint (HTTP only). */
  pages?: HttpPages;
  /** Writes the runtime file `mcpkit dashboard` reads, once the endpoint's URL is known. */
  onListening?: (url: string) => Promise<void>;
  /** Flushes the audit log and the export, ends the dashboard's streams, removes the runtime file. */
  close(): Promise<void>;
}

/**
 * Subscribes what the flags and environment ask for to the gateway's calls: `--audit FILE`, an OTLP
 * export when `OTEL_EXPORTER_OTLP_*` is set (the SDK is loaded only then), and over HTTP the dashboard.
 */
export async function startObservers(
  gateway: Gateway,
  flags: ObserverFlags,
  io: CliIO,
  logs: LogBuffer,
): Promise<GatewayObservers> {
  const closers: (() => Promise<void> | void)[] = [];
  const label = 'mcpkit gateway';
  if (flags.audit !== undefined) {
    const audit = new AuditLog(resolve(io.cwd, flags.audit), {
      onError: (error) => io.err(`${label}: ${error.message}\n`),
    });
    const stop = gateway.calls.subscribe(audit);
    closers.push(async () => {
      stop();
      await audit.flush();
    });
  }
  if (telemetryWanted(io.env)) {
    const { startTelemetryExport } = await import('../gateway/observers/telemetry-export.js');
    const exporting = await startTelemetryExport(io.env, () => gateway.status());
    const stop = gateway.calls.subscribe(exporting.telemetry);
    closers.push(async () => {
      stop();
      await exporting.shutdown();
    });
    io.err(`${label}: exporting traces and metrics over OTLP (${exporting.protocol})\n`);
  }
  const observers: GatewayObservers = {
    close: async () => {
      for (const close of closers.reverse()) await close();
    },
  };
  if (flags.transport !== 'http' || !flags.dashboard) return observers;
  const dashboard = new Dashboard(gateway, { logs, payloads: flags.dashboardPayloads ?? false });
  closers.push(() => dashboard.close());
  observers.pages = dashboard;
  observers.onListening = async (url) => {
    const { writeGatewayRuntime } = await import('../gateway/observers/dashboard/runtime-file.js');
    const startedAt = new Date().toISOString();
    const page = new URL('/', url).href;
    const write = () =>
      writeGatewayRuntime(io.env, {
        pid: process.pid,
        dashboard: page,
        mcp: url,
        startedAt,
        key: dashboard.loginKey,
      });
    let remove = await write();
    // The key is for one login: the file gets the next one.
    dashboard.onKeyUsed = () => {
      write().then(
        (again) => {
          remove = again;
        },
        (error: Error) => io.err(`${label}: ${error.message}\n`),
      );
    };
    closers.unshift(() => remove());
    io.err(`${label}: dashboard on ${page} (\`mcpkit dashboard\` opens it)\n`);
  };
  return observers;
}
