import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { setTomlTables } from '../../src/config/formats/toml-merge.js';

describe('setTomlTables', () => {
  it('replaces named tables and their sub-tables, keeping comments and other tables', () => {
    const text = [
      '# top comment',
      'model = "o3"',
      '',
      '[mcp_servers.a]',
      'command = "old"',
      '[mcp_servers.a.env]',
      'X = "1"',
      '',
      '[mcp_servers."b.c"] # quoted name',
      'command = "keep"',
      '',
      '[other]',
      'k = 1 # trailing',
    ].join('\n');
    const result = setTomlTables(text, parse(text), 'mcp_servers', { a: { command: 'new' } }) ?? '';
    expect(result).toContain('# top comment');
    expect(result).toContain('k = 1 # trailing');
    expect(result).not.toContain('command = "old"');
    expect(parse(result)).toEqual({
      model: 'o3',
      mcp_servers: { a: { command: 'new' }, 'b.c': { command: 'keep' } },
      other: { k: 1 },
    });
  });

  it('refuses (undefined) when the whole servers table is inline: no rewrite of what it did not touch', () => {
    const text = '# kept\nmcp_servers = { a = { command = "old" } }\n';
    const result = setTomlTables(text, parse(text), 'mcp_servers', {
      a: { command: 'new' },
      b: { command: 'b' },
    });
    expect(result).toBeUndefined();
  });

  it('replaces a server written inline on its own line, as an inline table, its comment and neighbours kept', () => {
    const text = [
      '[mcp_servers]',
      'a = { command = "old", trust = 1 }   # the a server',
      '"b.c" = {command="keep",args=["x"]}',
      '',
    ].join('\n');
    const result = setTomlTables(text, parse(text), 'mcp_servers', {
      a: { command: 'new', args: ['-y', 'q"x'], env: { K: 'v' }, trust: 1 },
      d: { command: 'd' },
    });
    expect(result).toBe(
      [
        '[mcp_servers]',
        'a = { command = "new", args = [ "-y", "q\\"x" ], env = { K = "v" }, trust = 1 }   # the a server',
        '"b.c" = {command="keep",args=["x"]}',
        '',
        '[mcp_servers.d]',
        'command = "d"',
        '',
      ].join('\n'),
    );
  });

  it('adds to an empty file', () => {
    const result = setTomlTables('', {}, 'mcp_servers', { a: { command: 'x', args: ['-y'] } });
    expect(result).toBe('[mcp_servers.a]\ncommand = "x"\nargs = [ "-y" ]\n');
  });

  it('replaces a table where it stands: the comment above stays above, later tables do not move', () => {
    const text = [
      '# servers',
      '[mcp_servers.a]',
      'command = "old"',
      '',
      '# the b server',
      '[mcp_servers.b]',
      'command = "b"',
      '',
      '[profiles.fast]',
      'model = "o4-mini"',
      '',
    ].join('\n');
    const result = setTomlTables(text, parse(text), 'mcp_servers', {
      b: { command: 'new' },
      c: { command: 'c' },
    });
    expect(result).toBe(
      [
        '# servers',
        '[mcp_servers.a]',
        'command = "old"',
        '',
        '# the b server',
        '[mcp_servers.b]',
        'command = "new"',
        '',
        '[mcp_servers.c]',
        'command = "c"',
        '',
        '[profiles.fast]',
        'model = "o4-mini"',
        '',
      ].join('\n'),
    );
  });

  it('leaves the text as it is when no table changes', () => {
    const text = '# x\n[mcp_servers.a]\ncommand = "a"   # odd spacing\n';
    expect(setTomlTables(text, parse(text), 'mcp_servers', {})).toBe(text);
  });
});
