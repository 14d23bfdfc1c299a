import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dashboard, LogBuffer } from '../../src/gateway/index.js';
import { BearerTokens } from '../../src/serve/bearer-tokens.js';
import { type HttpServerHandle, serveOverHttp } from '../../src/serve/index.js';
import { chromiumPath, missingEngines } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway, upstream } from '../helpers/gateway.js';
import { everything } from '../helpers/servers.js';

const TOKEN = 'a1b2c3d4e5f60718293a4b5c6d7e8f90aabbccddeeff0011';
/** Written into the page's own log and the call arguments: the dashboard must never show it. */
const SECRET = 'sk-dashboard-test-7c1e9a2b4d6f8e0a1c3e5b7d9f';

let gatewayClose: () => Promise<void>;
let http: HttpServerHandle;
let dashboard: Dashboard;
let browser: Browser;
let page: Page;
let shots: string;
let base: string;
const consoleErrors: string[] = [];

beforeAll(async () => {
  shots = await mkdtemp(join(tmpdir(), 'mcpkit-dashboard-shots-'));
  const logs = new LogBuffer();
  const started = await startGateway(
    [
      { name: 'everything', entry: everything },
      { name: 'flaky', entry: upstream('flaky') },
    ],
    {
      log: (message) => logs.add(message),
      restartDelayMs: 1500,
      profiles: { review: { tools: ['*__echo', 'flaky__p*'], description: 'for the reviewer agent' } },
    },
  );
  gatewayClose = started.close;
  dashboard = new Dashboard(started.gateway, { logs, payloads: true });
  const review = started.gateway.profile('review');
  http = await serveOverHttp(started.gateway.factory, {
    intercept: started.gateway.intercept(),
    bus: started.gateway.events,
    tokens: BearerTokens.parse(`alice:${TOKEN}`, 'test'),
    pages: dashboard,
    mounts: [{ path: '/mcp/review', factory: review.factory, intercept: review.intercept() }],
  });
  base = new URL('/', http.url).href;
  logs.add('the dashboard test started');
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-gpu'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, colorScheme: 'light' });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  dashboard?.close();
  await http?.close();
  await gatewayClose?.();
  // The screenshots stay for a person to look at only when asked (MCPKIT_KEEP_SHOTS=1).
  if (process.env.MCPKIT_KEEP_SHOTS !== '1') await rm(shots, { recursive: true, force: true });
  else process.stderr.write(`dashboard screenshots in ${shots}\n`);
});

// Run in the page (playwright serialises these functions): the browser's globals, which this file's types lack.
declare const document: {
  querySelector(
    selector: string,
  ): { getAttribute(name: string): string | null; querySelector(selector: string): unknown } | null;
};
declare function getComputedStyle(element: unknown): { color: string; borderLeftColor: string };

const row = (table: string, attribute: string, value: string) => `#${table} tr[${attribute}="${value}"]`;

describe.skipIf(missingEngines('chromium'))('the dashboard in headless Chromium', () => {
  it('refuses a browser without the token, and logs one in with ?token= (an HttpOnly, SameSite=Strict cookie)', async () => {
    const refused = await fetch(base);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('?token=');
    const wrong = await fetch(`${base}?token=nope`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    const login = await fetch(`${base}?token=${TOKEN}`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/');
    expect(login.headers.get('set-cookie')).toMatch(
      /^mcpkit_session=[\w-]+; HttpOnly; SameSite=Strict; Path=\/$/,
    );
    expect(login.headers.get('set-cookie')).not.toContain(TOKEN);
    // A foreign Origin is refused like on the MCP endpoint.
    const foreign = await fetch(`${base}dashboard/api/state`, {
      headers: { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
  });

  it('loads without console errors and shows the upstreams and their tools, light enough (≤ 200 KB)', async () => {
    const sizes: number[] = [];
    page.on('response', (response) => {
      void response.body().then(
        (body) => sizes.push(body.length),
        () => undefined,
      );
    });
    await page.goto(`${base}?token=${TOKEN}`);
    expect(new URL(page.url()).search).toBe('');
    await page.waitForSelector(`${row('upstreams', 'data-server', 'everything')}[data-state="ready"]`);
    await page.waitForSelector(`${row('upstreams', 'data-server', 'flaky')}[data-state="ready"]`);
    await page.waitForSelector(row('tools', 'data-tool', 'everything__echo'));
    await page.waitForSelector(row('tools', 'data-tool', 'flaky__crash'));
    const echo = page.locator(row('tools', 'data-tool', 'everything__echo'));
    expect(await echo.locator('td').nth(1).textContent()).toBe('everything');
    expect(await echo.locator('td').nth(2).textContent()).toBe('same');
    expect(await echo.locator('td').nth(3).textContent()).toBe('Echoes back the input string');
    // Clicking a tool shows its input schema.
    await echo.click();
    expect(JSON.parse((await page.locator('#call-schema').textContent()) ?? '')).toMatchObject({
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
    await page.waitForSelector('#live[data-live="live"]');
    await eventually(() =>
      page.locator('#log div').filter({ hasText: 'the dashboard test started' }) ? true : undefined,
    );
    await page.screenshot({ path: join(shots, 'loaded.png'), fullPage: true });
    const transferred = sizes.reduce((a, b) => a + b, 0);
    expect(transferred).toBeLessThanOrEqual(200 * 1024);
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it('shows a tool call an MCP client makes, live, under the client token name, secrets masked', async () => {
    const client = new V1Client({ name: 'dashboard-test', version: '1' });
    await client.connect(
      new V1HttpTransport(new URL(http.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      await client.callTool({ name: 'everything__echo', arguments: { message: 'hello', apiKey: SECRET } });
      const call = page
        .locator(`${row('calls', 'data-tool', 'everything__echo')}[data-outcome="ok"]`)
        .first();
      await call.waitFor();
      expect(await call.locator('td').nth(1).textContent()).toBe('alice');
      expect(await call.locator('td').nth(2).textContent()).toBe('');
      expect(await call.locator('td').nth(4).textContent()).toBe('everything');
      expect(await call.getAttribute('title')).toContain('"apiKey":"***"');
      expect(await page.content()).not.toContain(SECRET);
    } finally {
      await client.close();
    }
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it('lists the profiles with their endpoints and tools, and shows the profile a call came through', async () => {
    const review = page.locator(row('profiles', 'data-profile', 'review'));
    await review.waitFor();
    const cells = review.locator('td');
    expect(await cells.nth(0).textContent()).toBe('review');
    expect(await cells.nth(1).textContent()).toBe('/mcp/review');
    expect(await cells.nth(2).locator('.count').textContent()).toBe('2');
    expect(await cells.nth(2).locator('.tool-names').textContent()).toBe('everything__echo, flaky__pid');
    expect(await cells.nth(3).textContent()).toBe('for the reviewer agent');
    const client = new V1Client({ name: 'dashboard-profile-test', version: '1' });
    await client.connect(
      new V1HttpTransport(new URL('/mcp/review', http.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      // The profile's endpoint lists exactly the tools the page shows for it.
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'everything__echo',
        'flaky__pid',
      ]);
      await client.callTool({ name: 'flaky__pid', arguments: {} });
      const call = page.locator(`${row('calls', 'data-tool', 'flaky__pid')}[data-profile="review"]`).first();
      await call.waitFor();
      expect(await call.locator('td').nth(1).textContent()).toBe('alice');
      expect(await call.locator('td').nth(2).textContent()).toBe('review');
      expect(await call.locator('td').nth(4).textContent()).toBe('flaky');
    } finally {
      await client.close();
    }
    await page.screenshot({ path: join(shots, 'profiles.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it('calls a tool from the form', async () => {
    await page.selectOption('#call-tool', 'everything__echo');
    await page.fill('#call-args', JSON.stringify({ message: 'from the form' }));
    await page.click('#call-submit');
    await page.waitForSelector('#call-result[data-outcome="ok"]');
    expect(await page.locator('#call-result').textContent()).toBe('Echo: from the form');
    // The form's call shows in the feed too, as the dashboard's call for alice.
    const call = page.locator(`${row('calls', 'data-tool', 'everything__echo')}[data-outcome="ok"]`).first();
    await eventually(async () =>
      (await call.locator('td').nth(1).textContent()) === 'dashboard:alice' ? true : undefined,
    );
    // Bad JSON is said so, and nothing is called.
    await page.fill('#call-args', '{ not json');
    await page.click('#call-submit');
    await page.waitForSelector('#call-result[data-outcome="error"]');
    expect(await page.locator('#call-result').textContent()).toMatch(/^The arguments are not JSON/);
    await page.screenshot({ path: join(shots, 'call-form.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it('turns a crashed upstream red, and back once it restarted', async () => {
    const flaky = page.locator(row('upstreams', 'data-server', 'flaky'));
    await page.selectOption('#call-tool', 'flaky__crash');
    await page.fill('#call-args', '{}');
    await page.click('#call-submit');
    // Read in the page the moment the row turns: state, badge colour, the red edge.
    const seen = await (
      await page.waitForFunction(() => {
        const down = document.querySelector('#upstreams tr[data-server="flaky"].down');
        if (!down) return undefined;
        return {
          state: down.getAttribute('data-state'),
          badge: getComputedStyle(down.querySelector('.badge')).color,
          edge: getComputedStyle(down.querySelector('td')).borderLeftColor,
        };
      })
    ).jsonValue();
    expect(['restarting', 'failed', 'starting']).toContain(seen?.state);
    expect(['rgb(207, 34, 46)', 'rgb(154, 103, 0)']).toContain(seen?.badge);
    expect(seen?.edge).toBe('rgb(207, 34, 46)');
    await page.screenshot({ path: join(shots, 'crashed.png'), fullPage: true });
    await page.waitForSelector(`${row('upstreams', 'data-server', 'flaky')}[data-state="ready"]:not(.down)`, {
      timeout: 30_000,
    });
    expect(Number(await flaky.locator('td').nth(4).textContent())).toBeGreaterThanOrEqual(1);
    expect(await flaky.locator('.badge').evaluate((badge) => getComputedStyle(badge).color)).toBe(
      'rgb(26, 127, 55)',
    );
    await page.screenshot({ path: join(shots, 'recovered.png'), fullPage: true });
    // A copy for the docs, when asked (the README shows it).
    if (process.env.MCPKIT_DOCS_SCREENSHOT)
      await page.screenshot({ path: process.env.MCPKIT_DOCS_SCREENSHOT });
    expect((await readFile(join(shots, 'recovered.png'))).length).toBeGreaterThan(1000);
    expect(consoleErrors).toEqual([]);
  }, 90_000);
});
