import { describe, expect, it } from 'vitest';
import { checkServerName, maskUrl, parseServerEntry, transportOf } from '../../src/config/index.js';

describe('parseServerEntry', () => {
  it('picks the branch by keys and keeps unknown keys', () => {
    const stdio = parseServerEntry({ command: 'x', custom: 1 });
    expect(stdio).toEqual({ ok: true, entry: { command: 'x', custom: 1 } });
    const remote = parseServerEntry({ url: 'https://h/mcp' });
    expect(remote.ok && transportOf(remote.entry)).toBe('http');
    const sse = parseServerEntry({ type: 'sse', url: 'http://h/sse' });
    expect(sse.ok && transportOf(sse.entry)).toBe('sse');
  });

  it('reports problems with their paths', () => {
    expect(parseServerEntry({ command: 'x', url: 'https://h' })).toEqual({
      ok: false,
      issues: [{ path: [], message: 'has both "command" (stdio) and "url" (remote); keep one' }],
    });
    expect(parseServerEntry({ type: 'websocket', url: 'x' })).toEqual({
      ok: false,
      issues: [{ path: ['type'], message: 'must be "stdio", "http" or "sse"' }],
    });
    const bad = parseServerEntry({ url: 'ftp://h', timeout: -1 });
    expect(bad.ok ? [] : bad.issues.map((i) => i.path.join('.'))).toEqual(['url', 'timeout']);
  });

  it('checks names', () => {
    expect(checkServerName('ok_name-1')).toBeUndefined();
    expect(checkServerName('a__b')).toContain('__');
    expect(checkServerName('')).toContain('1-64');
  });
});

describe('maskUrl', () => {
  it('masks passwords and credential-like query values only', () => {
    expect(maskUrl('https://u:pw@h/mcp?token=abc&page=2')).toBe('https://u:***@h/mcp?token=***&page=2');
    expect(maskUrl('https://h/mcp')).toBe('https://h/mcp');
    expect(maskUrl('${URL}')).toBe('${URL}');
  });
});
