import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridge, loadContract } from '../../src/bridge/index.js';

// The bridge's safety for contracts, in-process: the environment tools see, the roots path arguments must
// stay in, and the memory/CPU limits of a call. Tools are real processes.

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'mcpkit-bridge-safety-')));
  await mkdir(join(dir, 'root', 'sub'), { recursive: true });
  await mkdir(join(dir, 'outside'));
  await writeFile(join(dir, 'root', 'inside.txt'), 'inside\n');
  await writeFile(join(dir, 'outside', 'secret.txt'), 'secret\n');
  await symlink(join(dir, 'outside', 'secret.txt'), join(dir, 'root', 'link.txt'));
  await symlink(join(dir, 'outside'), join(dir, 'root', 'dirlink'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

/** A bridge over `yaml` (written next to the test's files), with `env` as the bridge's environment. */
async function bridgeOf(yaml: string, env: Record<string, string> = {}) {
  const file = join(dir, `contract-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, yaml);
  const bridge = await createBridge(await loadContract(file), {
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    cwd: dir,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await (await bridge.factory({} as Parameters<McpServerFactory>[0])).connect(serverSide);
  const client = new Client({ name: 'safety-test', version: '1' });
  await client.connect(clientSide);
  return {
    call: async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as { content: unknown[]; isError?: boolean },
    close: async () => {
      await client.close();
      await bridge.shutdown();
    },
  };
}

describe('bridge: the environment of a tool', () => {
  const envTool = 'tools:\n  env:\n    description: Prints its environment.\n    argv: []\n';

  it('is minimal: a variable of the bridge is not there unless the contract lets it through', async () => {
    const bare = await bridgeOf(`name: e\nprogram: /usr/bin/env\n${envTool}`, { SECRET_X: 's3cret' });
    try {
      const text = textOf(await bare.call('env'));
      expect(text).toContain(`HOME=${dir}\n`);
      expect(text).not.toContain('SECRET_X');
    } finally {
      await bare.close();
    }
    const allowed = await bridgeOf(
      `name: e\nprogram: /usr/bin/env\ninheritEnv: [SECRET_X]\nenv:\n  ADDED: "from-\${OTHER}"\n${envTool}`,
      { SECRET_X: 's3cret', OTHER: 'other', UNNAMED: 'u' },
    );
    try {
      const lines = textOf(await allowed.call('env')).split('\n');
      expect(lines).toContain('SECRET_X=s3cret');
      // `env` still adds variables and expands ${VAR} from the bridge's environment.
      expect(lines).toContain('ADDED=from-other');
      expect(lines.filter((l) => /^(OTHER|UNNAMED)=/.test(l))).toEqual([]);
    } finally {
      await allowed.close();
    }
  });
});

describe('bridge: path arguments stay inside their roots', () => {
  const contract = [
    'name: p',
    'program: /bin/cat',
    'tools:',
    '  read:',
    '    description: Prints a file.',
    '    args:',
    '      file: { type: string, required: true, path: { roots: [root] } }',
    '    argv: [--, $file]',
    '  readin:',
    '    description: Prints a file of a directory.',
    '    args:',
    '      base: { type: string, required: true, path: { roots: [root] } }',
    '      name: { type: string, required: true, path: { within: base } }',
    '    argv: [--, $name]',
    '',
  ].join('\n');

  it('accepts a path inside (relative to where the program runs, or absolute), refuses one outside', async () => {
    const bridge = await bridgeOf(contract);
    const root = join(dir, 'root');
    const refused = (given: string, real: string) =>
      `Invalid arguments for read; nothing was run:\n- argument file: "${given}" resolves to ${real}, outside the allowed roots ${root}`;
    try {
      expect(textOf(await bridge.call('read', { file: 'root/inside.txt' }))).toBe('inside\n');
      expect(textOf(await bridge.call('read', { file: join(root, 'sub', '..', 'inside.txt') }))).toBe(
        'inside\n',
      );
      const outside = join(dir, 'outside', 'secret.txt');
      for (const [given, real] of [
        [outside, outside],
        ['root/../outside/secret.txt', outside],
        ['/etc/passwd', '/etc/passwd'],
        // Through symlinks inside the root that point out of it.
        ['root/link.txt', outside],
        [join(root, 'dirlink', 'secret.txt'), outside],
        [join(root, 'dirlink', 'not-yet.txt'), join(dir, 'outside', 'not-yet.txt')],
      ] as const) {
        const result = await bridge.call('read', { file: given });
        expect([result.isError, textOf(result)]).toEqual([true, refused(given, real)]);
      }
      // Hostile shapes are refused, never a crash: a NUL byte, a path longer than any the OS opens.
      expect(textOf(await bridge.call('read', { file: 'root/a\0b' }))).toBe(
        'Invalid arguments for read; nothing was run:\n- argument file: contains a NUL byte',
      );
      expect(textOf(await bridge.call('read', { file: 'a/'.repeat(3000) }))).toBe(
        'Invalid arguments for read; nothing was run:\n- argument file: longer than 4096 bytes',
      );
      // A file that does not exist yet, inside: allowed (the program decides what to do about it).
      const missing = await bridge.call('read', { file: 'root/none.txt' });
      expect(textOf(missing)).toMatch(/^\/bin\/cat exited with code 1\nstderr:\n.*none\.txt: No such file/);
    } finally {
      await bridge.close();
    }
  });

  it('within: resolves against another path argument and must stay inside it', async () => {
    const bridge = await bridgeOf(contract);
    try {
      expect(textOf(await bridge.call('readin', { base: 'root', name: 'inside.txt' }))).toBe('inside\n');
      const out = await bridge.call('readin', { base: 'root/sub', name: '../inside.txt' });
      expect([out.isError, textOf(out)]).toEqual([
        true,
        `Invalid arguments for readin; nothing was run:\n- argument name: "../inside.txt" resolves to ${join(dir, 'root', 'inside.txt')}, outside base (${join(dir, 'root', 'sub')})`,
      ]);
    } finally {
      await bridge.close();
    }
  });

  it('roots expand ${VAR}; an unset one is a start-up error naming where it is used', async () => {
    const yaml = contract.replace(
      'roots: [root] } }\n    argv: [--, $file]',
      'roots: ["${DATA}"] } }\n    argv: [--, $file]',
    );
    await expect(bridgeOf(yaml)).rejects.toThrow(
      'tools.read.args.file.path.roots uses ${DATA}, which is not set; set it or write ${DATA:-default}',
    );
    const bridge = await bridgeOf(yaml, { DATA: join(dir, 'outside') });
    try {
      expect(textOf(await bridge.call('read', { file: 'outside/secret.txt' }))).toBe('secret\n');
      expect((await bridge.call('read', { file: 'root/inside.txt' })).isError).toBe(true);
    } finally {
      await bridge.close();
    }
  });
});

describe('bridge: memory and CPU limits per call', () => {
  const contract = (limits: string, script: string) =>
    [
      'name: l',
      `program: ${process.execPath}`,
      'timeout: 60s',
      'tools:',
      '  hog:',
      '    description: Uses too much.',
      ...limits.split('\n').map((l) => `    ${l}`),
      `    argv: [-e, ${JSON.stringify(script)}]`,
      '',
    ].join('\n');

  it('a process that allocates past its memory limit is stopped, and the result says so', async () => {
    const bridge = await bridgeOf(
      contract('memory: 128MiB', 'const keep = []; for (;;) keep.push(Buffer.alloc(16 * 1024 * 1024, 1));'),
    );
    try {
      const result = await bridge.call('hog');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        new RegExp(
          `^${process.execPath} hit its memory limit \\(128 MiB per process\\) and was stopped\\nstderr:\\n`,
        ),
      );
      expect(textOf(result)).toMatch(/allocation failed/i);
    } finally {
      await bridge.close();
    }
  });

  it('a process that spins past its CPU limit is stopped, and the result says so', async () => {
    const bridge = await bridgeOf(contract('cpu: 1s', 'for (;;) {}'));
    try {
      const result = await bridge.call('hog');
      expect([result.isError, textOf(result)]).toEqual([
        true,
        `${process.execPath} hit its CPU limit (1 s) and was stopped`,
      ]);
    } finally {
      await bridge.close();
    }
  });

  it('under a limit, a program that is not there is still "cannot start"', async () => {
    const bridge = await bridgeOf(
      contract('memory: 64MiB', '').replace(process.execPath, 'no-such-program-x'),
    );
    try {
      const result = await bridge.call('hog');
      expect([result.isError, textOf(result)]).toEqual([
        true,
        'cannot start no-such-program-x: failed to execute no-such-program-x: No such file or directory',
      ]);
    } finally {
      await bridge.close();
    }
  });
});
