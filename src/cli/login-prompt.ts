import { followAuthorizationUrl, type RuntimeAuthOptions } from '../client/index.js';
import { openBrowser } from '../internal/browser.js';
import type { CliIO } from './io.js';

/** How the CLI shows a login: a browser (or only the URL), or the headless mode of test servers. */
export interface LoginDisplay {
  /** Open the browser as well as printing the URL (default true; `--no-browser` turns it off). */
  browser?: boolean;
  /** Fetch the authorization URL ourselves instead of a browser (`--headless`, `MCPKIT_AUTH_HEADLESS=1`). */
  headless?: boolean;
  /** Log in even without a terminal (`mcpkit auth login` always may). */
  always?: boolean;
}

/**
 * The CLI's Runtime `auth` option. A login happens on demand only where someone can do it: on a terminal,
 * in `mcpkit auth login`, or in the explicit headless mode; otherwise a server that needs one fails with
 * "needs a login: run mcpkit auth login x". The URL is always printed; the browser is opened by a plain
 * spawn of the platform's opener (never a shell).
 */
export function cliAuth(io: CliIO, display: LoginDisplay = {}): RuntimeAuthOptions {
  const headless = display.headless === true || io.env.MCPKIT_AUTH_HEADLESS === '1';
  const terminal = io.stdin.isTTY === true && io.stderrIsTTY;
  if (!headless && !terminal && display.always !== true) return {};
  return {
    onAuthorizationUrl: async (url, server) => {
      if (headless) {
        io.err(`mcpkit: logging in to server "${server}" (headless: following the authorization URL)\n`);
        await followAuthorizationUrl(url);
        return;
      }
      const opened = display.browser !== false && (await openBrowser(url, { env: io.env }));
      const how = opened ? 'a browser was opened; if it was not, open' : 'open';
      io.err(`mcpkit: server "${server}" needs a login: ${how} this URL and log in:\n  ${url.href}\n`);
    },
  };
}
