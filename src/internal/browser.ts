import { spawn } from 'node:child_process';

/** The platform's program that opens a URL in the default browser, and its arguments before the URL. */
function opener(platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler']];
  return ['xdg-open', []];
}

/**
 * Opens an http(s) URL in the user's browser: a plain spawn of the platform's opener with the URL as one
 * argument, never through a shell (CVE-2025-6514 was an authorization URL run by a shell). The browser
 * outlives us, so the opener is detached. Resolves false when no opener could be started.
 */
export function openBrowser(
  url: URL,
  options: { platform?: NodeJS.Platform; env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<boolean> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return Promise.resolve(false);
  const [command, args] = opener(options.platform ?? process.platform);
  return new Promise((resolve) => {
    try {
      // The user's own environment (DISPLAY, WAYLAND_DISPLAY, the desktop session), not a child's minimal one.
      const env = (options.env ?? process.env) as NodeJS.ProcessEnv;
      const child = spawn(command, [...args, url.href], {
        stdio: 'ignore',
        detached: true,
        shell: false,
        env,
      });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
