import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runInProcessAt } from '../config/run-in-process.js';
import type { CliResult } from '../helpers/cli.js';

/** The text of a tool result. */
export const textOf = (result: { content?: unknown }) =>
  ((result.content as { text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('');

/**
 * A small repository at `repo` (withRetry in src/retry.ts, TtlCache in src/cache.ts, a test of withRetry) and
 * another directory at `other` (charge_card in billing.py).
 */
export async function writeSearchRepos(repo: string, other: string): Promise<void> {
  await mkdir(join(repo, 'test'), { recursive: true });
  await mkdir(other, { recursive: true });
  await mkdir(join(repo, 'src'), { recursive: true });
  await writeFile(
    join(repo, 'src/retry.ts'),
    [
      '/** Calls fn until it succeeds, waiting longer after each failure. */',
      'export async function withRetry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {',
      '  for (let i = 0; ; i++) {',
      '    try {',
      '      return await fn();',
      '    } catch (error) {',
      '      if (i + 1 >= attempts) throw error;',
      '      await new Promise((r) => setTimeout(r, 100 * 2 ** i));',
      '    }',
      '  }',
      '}',
    ].join('\n'),
  );
  await writeFile(
    join(repo, 'src/cache.ts'),
    'export class TtlCache {\n  get(key: string) {\n    return key;\n  }\n}\n',
  );
  await writeFile(
    join(repo, 'test/retry.test.ts'),
    "import { withRetry } from '../src/retry.js';\ntest('withRetry retries', () => withRetry(async () => 1));\n",
  );
  await writeFile(
    join(other, 'billing.py'),
    'def charge_card(amount):\n    """Charge the customer card."""\n    return amount\n',
  );
}

/** `mcpkit …` run in this process (`run(argv, io)`) with only PATH set: exit code, stdout and stderr. */
export function mcpkit(cwd: string, ...args: string[]): Promise<CliResult> {
  return runInProcessAt(args, cwd, { PATH: process.env.PATH ?? '' });
}

/** A tiny model2vec-format model written by the test: "backoff" lies near "retry" and "wait", far from "cache". */
export async function writeTinyModel(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const vocab = ['[UNK]', 'retry', 'backoff', 'cache', '##ing', 'wait', 'ttl', 'http'];
  const vectors = [
    [0, 0, 0],
    [1, 0, 0],
    [0.9, 0.1, 0],
    [0, 1, 0],
    [0, 0, 1],
    [0.8, 0.2, 0],
    [0, 0.9, 0.1],
    [0, 0, 1],
  ];
  const tokenizer = {
    normalizer: { type: 'BertNormalizer', lowercase: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
  };
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  const data = Buffer.alloc(vocab.length * 3 * 4);
  for (const [i, v] of vectors.flat().entries()) data.writeFloatLE(v, i * 4);
  const header = Buffer.from(
    JSON.stringify({
      embeddings: { dtype: 'F32', shape: [vocab.length, 3], data_offsets: [0, data.length] },
    }),
  );
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(header.length));
  await writeFile(join(dir, 'model.safetensors'), Buffer.concat([length, header, data]));
}
