import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog, argumentsDigest, type CallRecord } from '../../src/gateway/index.js';
import { connectInProcess, startGateway, textOf } from '../helpers/gateway.js';
import { everything } from '../helpers/servers.js';

const SECRET = 'sk-test-3f9a1c7e5b2d4086aa11ce5e2b7d9f01';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the audit log (--audit)', () => {
  it('writes a line per call — client, tool, argument digest, outcome, duration — and never what the call carried', async () => {
    const started = await startGateway([{ name: 'everything', entry: everything }], {
      profiles: { review: { servers: ['everything'] } },
      profile: 'review',
    });
    cleanups.push(started.close);
    const file = join(started.dir, 'audit', 'calls.jsonl');
    const audit = new AuditLog(file);
    started.gateway.calls.subscribe(audit);
    const client = await connectInProcess(started.gateway, { name: 'auditor' });
    cleanups.push(client.close);

    const echoed = await client.client.callTool({ name: 'everything__echo', arguments: { message: SECRET } });
    expect(textOf(echoed)).toContain(SECRET);
    const failed = await client.client.callTool({
      name: 'everything__get-sum',
      arguments: { a: 'x', b: SECRET },
    });
    expect(failed.isError).toBe(true);
    await expect(client.client.callTool({ name: 'nope__missing', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
    await audit.flush();

    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(SECRET);
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l.client, l.profile, l.tool, l.server, l.outcome])).toEqual([
      ['client:auditor@1', 'review', 'everything__echo', 'everything', 'ok'],
      ['client:auditor@1', 'review', 'everything__get-sum', 'everything', 'tool-error'],
      ['client:auditor@1', 'review', 'nope__missing', undefined, 'protocol-error'],
    ]);
    expect(lines[0]?.argsDigest).toBe(argumentsDigest({ message: SECRET }));
    // Key order does not change the digest: equal arguments, equal digests.
    expect(argumentsDigest({ b: 1, a: { y: 2, x: 1 } })).toBe(argumentsDigest({ a: { x: 1, y: 2 }, b: 1 }));
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(
        [
          'argsDigest',
          'client',
          'durationMs',
          'outcome',
          'profile',
          'time',
          'tool',
          ...(line.server ? ['server'] : []),
        ].sort(),
      );
      expect(typeof line.durationMs).toBe('number');
      expect(Number.isNaN(Date.parse(line.time as string))).toBe(false);
    }
  }, 60_000);

  it('rotates by size, keeping the newest files', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mcpkit-audit-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const file = join(root, 'audit.jsonl');
    const audit = new AuditLog(file, { maxBytes: 600, keep: 2 });
    const record = (n: number): CallRecord => ({
      id: n,
      time: new Date().toISOString(),
      name: `srv__tool${n}`,
      args: { n },
      outcome: 'ok',
      durationMs: 1,
      marks: new Map(),
    });
    for (let n = 0; n < 20; n++) {
      audit.ended(record(n));
      await audit.flush();
    }
    expect((await readdir(root)).sort()).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2']);
    const newest = await readFile(file, 'utf8');
    expect(newest.trim().split('\n').at(-1)).toContain('"srv__tool19"');
    for (const name of ['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2'])
      expect((await readFile(join(root, name))).length).toBeLessThanOrEqual(600);
    // The oldest lines were dropped with the oldest file.
    const all = (
      await Promise.all(
        ['audit.jsonl.2', 'audit.jsonl.1', 'audit.jsonl'].map((n) => readFile(join(root, n), 'utf8')),
      )
    ).join('');
    expect(all).not.toContain('"srv__tool0"');
  });
});
