import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const git = (cwd: string, ...args: string[]) => {
  const result = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
};

/**
 * A real git server on 127.0.0.1 (smart HTTP through `git http-backend`) serving one bare repository,
 * `repo.git`, made from `files`. `close()` in a finally (it deletes the repository too).
 */
export async function startGitServer(
  files: Record<string, string>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const base = await mkdtemp(join(tmpdir(), 'mcpkit-git-'));
  const work = join(base, 'work');
  git(base, 'init', '-q', '-b', 'main', work);
  for (const [path, content] of Object.entries(files)) await writeFile(join(work, path), content);
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'initial');
  git(base, 'clone', '-q', '--bare', work, join(base, 'repo.git'));
  const backend = spawnSync('git', ['--exec-path'], { encoding: 'utf8' }).stdout.trim();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const child = spawn(join(backend, 'git-http-backend'), [], {
      env: {
        GIT_PROJECT_ROOT: base,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      },
    });
    req.pipe(child.stdin);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', () => {
      const out = Buffer.concat(chunks);
      const split = out.indexOf('\r\n\r\n');
      const head = out.subarray(0, split).toString();
      let status = 200;
      for (const line of head.split('\r\n')) {
        const [key, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (key?.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (key) res.setHeader(key, value);
      }
      res.writeHead(status).end(out.subarray(split + 4));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/repo.git`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(base, { recursive: true, force: true });
    },
  };
}
