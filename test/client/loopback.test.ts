import { expect, it } from 'vitest';
import { openLoopback } from '../../src/client/auth/loopback.js';

it('the loopback redirect listens on 127.0.0.1, refuses a wrong state, takes one good callback and closes', async () => {
  const loopback = await openLoopback(0);
  expect(loopback.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  const controller = new AbortController();
  const result = loopback.callback(() => 'the-state', controller.signal);
  const wrong = await fetch(`${loopback.redirectUrl}?code=stolen&state=other`);
  expect(wrong.status).toBe(400);
  const elsewhere = await fetch(loopback.redirectUrl.replace('/callback', '/other?code=x&state=the-state'));
  expect(elsewhere.status).toBe(400);
  const good = await fetch(
    `${loopback.redirectUrl}?code=the-code&state=the-state&iss=https%3A%2F%2Fas.example`,
  );
  expect(good.status).toBe(200);
  expect(await good.text()).toContain('Logged in. You can close this tab.');
  expect(await result).toEqual({ code: 'the-code', iss: 'https://as.example' });
  const again = await fetch(`${loopback.redirectUrl}?code=second&state=the-state`);
  expect(again.status).toBe(400);
  await loopback.close();
  await expect(fetch(loopback.redirectUrl)).rejects.toThrow();
});

it('an error answer from the authorization server rejects the login with its words', async () => {
  const loopback = await openLoopback(0);
  const result = loopback.callback(() => 's', new AbortController().signal);
  result.catch(() => undefined);
  await fetch(`${loopback.redirectUrl}?error=access_denied&error_description=the+user+said+no&state=s`);
  await expect(result).rejects.toThrow(
    'the authorization server refused the login: access_denied (the user said no)',
  );
  await loopback.close();
});
