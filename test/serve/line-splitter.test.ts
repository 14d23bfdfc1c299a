import { PassThrough } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/internal/line-splitter.js';
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
    const overflows: number[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), {
      maxLineLength: 100,
      onOverflow: (length) => overflows.push(length),
    });
    splitter.push('a\n');
    for (let i = 0; i < 10; i++) splitter.push('y'.repeat(60));
    splitter.push('tail\nb\nc');
    splitter.flush();
    expect(lines).toEqual(['a', 'b', 'c']);
    expect(overflows).toEqual([120]);
  });

  it('keeps lines split across chunks and CRLF, and skips blank lines', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    for (const part of ['{"a"', ':1}\r', '\n\n  \n{"b":2}\n{"c"', ':3}']) splitter.push(part);
    splitter.flush();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('a stdio server answers a line over 16 MiB with -32600 (id null), then the next frame as usual', async () => {
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
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Invalid Request: line longer than 16 MiB' },
        },
        { jsonrpc: '2.0', id: 2, result: {} },
      ]);
    } finally {
      await served.close();
    }
  });
});
