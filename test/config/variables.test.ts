import { describe, expect, it } from 'vitest';
import { expandServerEntry, findVariables } from '../../src/config/index.js';
import { isMcpkitError } from '../../src/errors/index.js';

describe('expandServerEntry', () => {
  const env = { HOST: 'h.example', EMPTY: '', TOKEN: 't' };

  it('expands command, args, env, cwd; defaults apply when unset or empty (POSIX :-)', () => {
    const entry = {
      command: '${BIN:-node}',
      args: ['${EMPTY:-fallback}', 'x${HOST}y', '${input:keep}', '$HOST'],
      env: { A: '${TOKEN}', B: '${EMPTY}' },
      cwd: '${DIR:-/tmp}',
    };
    expect(expandServerEntry('s', entry, env)).toEqual({
      command: 'node',
      args: ['fallback', 'xh.exampley', '${input:keep}', '$HOST'],
      env: { A: 't', B: '' },
      cwd: '/tmp',
    });
  });

  it('expands url and header values of remote servers', () => {
    const entry = {
      type: 'http' as const,
      url: 'https://${HOST}/mcp',
      headers: { Authorization: 'Bearer ${TOKEN}' },
    };
    expect(expandServerEntry('s', entry, env)).toEqual({
      type: 'http',
      url: 'https://h.example/mcp',
      headers: { Authorization: 'Bearer t' },
    });
  });

  it('fails with CONFIG_MISSING_VAR naming every missing variable, where it is used and the server', () => {
    let error: unknown;
    try {
      expandServerEntry('db', { command: 'x', args: ['${A}'], env: { K: '${B}' } }, {});
    } catch (e) {
      error = e;
    }
    expect(isMcpkitError(error, 'CONFIG_MISSING_VAR')).toBe(true);
    expect((error as Error).message).toBe(
      'server "db": environment variable A (in args[0]), B (in env.K) is not set; set it or give a default with ${NAME:-default}',
    );
  });

  it('finds references with their defaults', () => {
    expect(findVariables('a ${X} ${Y:-1} ${env:Z}')).toEqual([
      { raw: '${X}', name: 'X' },
      { raw: '${Y:-1}', name: 'Y', default: '1' },
    ]);
  });
});
