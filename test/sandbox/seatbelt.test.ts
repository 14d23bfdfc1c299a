import { describe, expect, it } from 'vitest';
import { seatbeltProfile } from '../../src/sandbox/index.js';

/** macOS's profile text (CI is Linux: `sandbox-exec` itself runs on a Mac only). */
describe('the Seatbelt profile', () => {
  it('allows writes to its places, hides its secrets and the other sandboxes, and reaches only the proxy', () => {
    const text = seatbeltProfile(
      {
        write: ['/nonexistent/work'],
        deny: ['/nonexistent/home/.ssh', '/nonexistent/a "quoted" dir'],
        network: ['x.com'],
      },
      {
        parent: '/nonexistent/sandboxes',
        temp: '/nonexistent/sandboxes/s-1/tmp',
        denyDir: '/nonexistent/sandboxes/s-1/deny-dir',
        denyFile: '/nonexistent/sandboxes/s-1/deny-file',
      },
      40123,
    );
    expect(text.split('\n')).toEqual([
      '(version 1)',
      '(allow default)',
      '(deny file-write*)',
      '(allow file-write* (subpath "/nonexistent/work") (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))',
      '(deny file-read* file-write* (subpath "/nonexistent/sandboxes"))',
      '(allow file-read* file-write* (subpath "/nonexistent/sandboxes/s-1/tmp"))',
      '(deny file-read* file-write* (subpath "/nonexistent/home/.ssh") (subpath "/nonexistent/a \\"quoted\\" dir"))',
      '(deny network*)',
      '(allow network-outbound (remote ip "localhost:40123"))',
      '',
    ]);
  });

  it('with no host allowed, denies the whole network', () => {
    const dirs = { parent: '/p', temp: '/p/t', denyDir: '/p/d', denyFile: '/p/f' };
    const text = seatbeltProfile({ write: ['/w'], deny: [], network: [] }, dirs);
    expect(text.trimEnd().split('\n').slice(-1)).toEqual(['(deny network*)']);
  });
});
