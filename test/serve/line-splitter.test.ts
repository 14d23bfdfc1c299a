import { PassThrough } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { LineSplitter, type SkippedLine } from '../../src/internal/line-splitter.js';
import { skippedFrame } from '../../src/internal/skipped-frame.js';
import { serveOverStdio } from '../../src/serve/index.js';
import { eventually } from '../helpers/eventually.js';

// The splitter sits under both stdio transports (serve/'s server side and client/'s stdout and stderr).
describe('LineSplitter: linear in the input, a capped line', () => {
  it('scans each chunk once: a 40 MB line in 64 KiB chunks costs 40 MB of scanning, not 12 TB', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), { maxLineLength: 64 * 1024 * 1024 });
    const chunk = 'x'.repeat(64 * 1024);
    const chunks = 640; // 40 MiB
    for (let i = 0; i < chunks; i++) splitter.push(chunk);
    splitter.push('\r\nnext\n');
    // The old splitter rescanned the pending text for every chunk: Σ i·64 KiB over 640 chunks.
    expect(splitter.scanned).toBe(chunks * chunk.length + 7);
    expect(lines.map((l) => l.length)).toEqual([chunks * chunk.length, 4]);
    expect(lines[1]).toBe('next');
  });

  it('drops a line over the cap as it arrives, reports it once, and serves the next line', () => {
    const lines: string[] = [];
    const overflows: SkippedLine[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), {
      maxLineLength: 100,
      onOverflow: (line) => overflows.push(line),
    });
    splitter.push('a\n');
    splitter.push('head');
    for (let i = 0; i < 10; i++) splitter.push('y'.repeat(60));
    splitter.push('tail\r\nb\nc');
    splitter.flush();
    expect(lines).toEqual(['a', 'b', 'c']);
    // Reported once, when the line ends, with its length and both ends (for the frame's id).
    expect(overflows).toEqual([
      { length: 4 + 600 + 5, head: `head${'y'.repeat(120)}`, tail: `${'y'.repeat(252)}tail` },
    ]);
  });

  it('reads the id and kind of a skipped frame from its ends only', () => {
    const ends = (text: string): SkippedLine => ({
      length: text.length,
      head: text.slice(0, 256),
      tail: text.slice(-256),
    });
    const big = `"${'z'.repeat(1000)}"`;
    // The TypeScript SDKs write the id last; most others first.
    expect(
      skippedFrame(ends(`{"method":"tools/call","params":{"a":${big}},"jsonrpc":"2.0","id":7}`)),
    ).toEqual({ kind: 'request', id: 7 });
    expect(skippedFrame(ends(`{"jsonrpc":"2.0","id":"r-1","result":{"a":${big}}}`))).toEqual({
      kind: 'response',
      id: 'r-1',
    });
    expect(skippedFrame(ends(`{"result":{"a":${big}},"jsonrpc":"2.0","id":3}`))).toEqual({
      kind: 'response',
      id: 3,
    });
    expect(skippedFrame(ends(`{"error":{"code":1,"message":${big}},"id":4,"jsonrpc":"2.0"}`))).toEqual({
      kind: 'response',
      id: 4,
    });
    // An id inside the payload is never taken for the frame's.
    expect(skippedFrame(ends(`{"result":{"a":${big},"jsonrpc":"2.0","id":9}}`))).toBeUndefined();
    expect(skippedFrame(ends(`{"params":{"id":2,"a":${big}},"method":"x"}`))).toBeUndefined();
    expect(
      skippedFrame(ends(`{"method":"notifications/message","params":{"a":${big}},"jsonrpc":"2.0"}`)),
    ).toBeUndefined();
  });

  it('keeps lines split across chunks and CRLF, and skips blank lines', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    for (const part of ['{"a"', ':1}\r', '\n\n  \n{"b":2}\n{"c"', ':3}']) splitter.push(part);
    splitter.flush();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('a stdio server answers a line over 16 MiB with -32600 to its id, then the next frame as usual', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const answers: { id: unknown; error?: { code: number; message: string } }[] = [];
    let text = '';
    output.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const parts = text.split('\n');
      text = parts.pop() ?? '';
      for (const part of parts) answers.push(JSON.parse(part));
    });
    const served = serveOverStdio(() => new McpServer({ name: 's', version: '1' }), { input, output });
    try {
      const piece = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'z'.repeat(1024 * 1024)}`;
      for (let i = 0; i < 17; i++) input.write(piece);
      input.write('"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
      await eventually(() => (answers.length >= 2 ? true : undefined));
      expect(answers).toEqual([
        // The request's own id, read from the line's first characters.
        {
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32600, message: 'Invalid Request: line longer than 16 MiB' },
        },
        { jsonrpc: '2.0', id: 2, result: {} },
      ]);
    } finally {
      await served.close();
    }
  });
});
