import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/internal/line-splitter.js';
import { createHttpHandler, serveOverStdio } from '../../src/serve/index.js';
import { CLI } from '../helpers/cli.js';
import { startGateway, toolServer } from '../helpers/gateway.js';
import { fixture } from '../helpers/servers.js';
import { type FuzzReport, fuzzFrames, fuzzHttp, fuzzStdio, type StdioEndpoint } from './frame-fuzz.js';

// Short mode of bench/fuzz-frames.ts: a few hundred generated frames per server. Every request-shaped
// frame (ids of every type, params of every type, batches, 10k-deep nesting, invalid UTF-8, NULs) gets
// exactly one answer and the server stays up. Before serve/ answered them, ~17 % got none.
const FRAMES = 300;

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const clean = (report: FuzzReport) => ({
  lost: report.lost,
  extra: report.extra,
  wrong: report.wrong,
  hangs: report.hangs,
  crashed: report.crashed,
  examples: report.examples,
});
const NOTHING_WRONG = { lost: 0, extra: 0, wrong: 0, hangs: 0, crashed: false, examples: [] };

function streamEndpoint(input: NodeJS.WritableStream, output: NodeJS.ReadableStream): StdioEndpoint {
  let ended = false;
  const listeners: ((line: string) => void)[] = [];
  const lines = new LineSplitter((line) => {
    for (const listener of listeners) listener(line);
  });
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => lines.push(chunk));
  output.on('end', () => {
    ended = true;
  });
  return { write: (bytes) => input.write(bytes), onLine: (l) => listeners.push(l), ended: () => ended };
}

async function inProcessGateway() {
  const started = await startGateway([toolServer('lib', { echo: 'Echoes.', read: 'Reads.' })]);
  cleanups.push(started.close);
  return started.gateway;
}

describe.concurrent('every request-shaped frame gets exactly one answer (short fuzz)', () => {
  it('the bridge over stdio (spawned)', async () => {
    const child: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [CLI, 'bridge', fixture('bridge/contract.yaml')],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    cleanups.push(() => void child.kill('SIGKILL'));
    child.stderr.resume();
    const report = await fuzzStdio(
      streamEndpoint(child.stdin, child.stdout),
      fuzzFrames(1, FRAMES, ['argv', 'exit', 'lines']),
    );
    expect(clean(report)).toEqual(NOTHING_WRONG);
    expect(child.exitCode).toBe(null);
  });

  it('the gateway over stdio (in-process, with its hot path)', async () => {
    const gateway = await inProcessGateway();
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveOverStdio(gateway.factory, { input, output, intercept: gateway.intercept() });
    cleanups.push(() => served.close());
    const report = await fuzzStdio(streamEndpoint(input, output), fuzzFrames(2, FRAMES, ['lib__echo']));
    expect(clean(report)).toEqual(NOTHING_WRONG);
  });

  it('the gateway over HTTP (in-process handler, a 2025 session)', async () => {
    const gateway = await inProcessGateway();
    const handler = createHttpHandler(gateway.factory, { intercept: gateway.intercept() });
    cleanups.push(() => handler.close());
    const report = await fuzzHttp(
      (url, init) => handler.request(url, init),
      'http://127.0.0.1/mcp',
      fuzzFrames(3, FRAMES, ['lib__echo']),
    );
    expect(clean(report)).toEqual(NOTHING_WRONG);
    expect(handler.sessions).toBe(1);
  });

  it('the gateway over HTTP (in-process handler, 2026-07-28 requests)', async () => {
    const gateway = await inProcessGateway();
    const handler = createHttpHandler(gateway.factory, { intercept: gateway.intercept() });
    cleanups.push(() => handler.close());
    const report = await fuzzHttp(
      (url, init) => handler.request(url, init),
      'http://127.0.0.1/mcp',
      fuzzFrames(4, FRAMES, ['lib__echo']),
      { era: 'modern' },
    );
    expect(clean(report)).toEqual(NOTHING_WRONG);
    expect(handler.sessions).toBe(0);
  });
});
