import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisTokenStore } from '../../src/client/index.js';
import { RedisState } from '../../src/serve/index.js';
import { runInProcessAt } from '../config/run-in-process.js';
import { missingEngines } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { test } from '../helpers/fixtures.js';
import type { RedisServer } from '../helpers/redis.js';

const noRedis = missingEngines('redis');

const KEY = 'q'.repeat(48);
const URL_A = 'https://mcp.example.com/mcp';
const TOKEN = 'at-secret-0123456789';

describe.skipIf(noRedis)('RedisTokenStore: logins shared by gateway replicas, encrypted at rest', () => {
  let redis: RedisServer;
  const states: RedisState[] = [];
  test.beforeAll(({ redis: server }) => {
    redis = server;
  });
  afterAll(async () => {
    for (const state of states) await state.close();
  });
  const store = async (key = KEY) => {
    const state = await RedisState.connect(redis.url);
    states.push(state);
    return RedisTokenStore.over(state, key);
  };

  it('a login written by one replica is read by another; Redis holds no token in the clear', async () => {
    const [one, two] = [await store(), await store()];
    let noticed = 0;
    two.watch(() => {
      noticed++;
    });
    const before = await two.version();
    await one.update(URL_A, (record) => ({
      ...record,
      name: 'remote',
      issuer: 'https://as.example.com',
      issuers: { 'https://as.example.com': { tokens: { access_token: TOKEN, token_type: 'Bearer' } } },
    }));
    expect((await two.read(URL_A))?.issuers['https://as.example.com']?.tokens?.access_token).toBe(TOKEN);
    expect(await two.version()).not.toBe(before);
    await eventually(() => (noticed > 0 ? true : undefined));
    const raw = spawnSync('redis-cli', ['-p', String(redis.port), 'HGET', 'mcpkit:oauth', URL_A], {
      encoding: 'utf8',
    }).stdout;
    expect(raw.length).toBeGreaterThan(50);
    expect(raw).not.toContain(TOKEN);
    expect(raw).not.toContain('as.example.com');
    await expect((await store('w'.repeat(48))).read(URL_A)).rejects.toThrow(
      /does not open with this session key .*log in again/u,
    );
  });

  it('exclusive work (a refresh) runs one at a time across replicas', async () => {
    const [one, two] = [await store(), await store()];
    const order: string[] = [];
    const work = (name: string) => async () => {
      order.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the refresh's round trip, as the scenario
      order.push(`${name} out`);
    };
    await Promise.all([one.exclusive(URL_A, work('a')), two.exclusive(URL_A, work('b'))]);
    expect([order[0]?.slice(2), order[1]?.slice(2)]).toEqual(['in', 'out']);
    expect(order[0]?.[0]).toBe(order[1]?.[0]);
  });

  it('`mcpkit auth status --state` lists the shared logins (no token shown); without the key it is a usage error', async () => {
    const env = { PATH: process.env.PATH ?? '', MCPKIT_SESSION_KEY: KEY, MCPKIT_CONFIG_DIR: '/nonexistent' };
    const status = await runInProcessAt(['auth', 'status', '--state', redis.url], '/tmp', env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`tokens: redis 127.0.0.1:${redis.port} (encrypted)\n`);
    expect(status.stdout).toContain(URL_A);
    expect(status.stdout).not.toContain(TOKEN);
    const noKey = await runInProcessAt(['auth', 'status', '--state', redis.url], '/tmp', {
      PATH: env.PATH,
    });
    expect([noKey.code, noKey.stderr]).toEqual([
      2,
      'mcpkit: --state needs --session-key FILE (or MCPKIT_SESSION_KEY): replicas seal session ids with it\n',
    ]);
  });
});
