import { isAbsolute, resolve } from 'node:path';

/** One path a traced call touched: read, written (created, changed, removed) or run, and how it ended. */
export interface PathAccess {
  path: string;
  access: 'read' | 'write';
  /** The errno name when it failed (`EACCES`, `EROFS`, `ENOENT`…). */
  error?: string;
}

// `123   openat(AT_FDCWD, "/x", O_RDONLY|O_CLOEXEC) = 3`, `… = -1 EACCES (Permission denied)`.
const CALL = /^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)(?:\s+(E[A-Z]+))?/;
const QUOTED = /"((?:[^"\\]|\\.)*)"/g;
const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC/;
const WRITING_CALLS = new Set([
  'creat',
  'mkdir',
  'mkdirat',
  'unlink',
  'unlinkat',
  'rmdir',
  'rename',
  'renameat',
  'renameat2',
  'truncate',
  'symlink',
  'symlinkat',
  'link',
  'linkat',
]);

/** A string as strace prints it (C escapes, non-ASCII bytes as `\xNN` or octal) back to its UTF-8 text. */
function straceString(text: string): string {
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, '"': 34, '\\': 92 };
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char !== '\\') {
      bytes.push(...Buffer.from(char, 'utf8'));
      continue;
    }
    const rest = text.slice(i + 1);
    const hex = /^x([0-9a-fA-F]{2})/.exec(rest);
    const octal = /^([0-7]{1,3})/.exec(rest);
    if (hex?.[1]) {
      bytes.push(Number.parseInt(hex[1], 16));
      i += 3;
    } else if (octal?.[1]) {
      bytes.push(Number.parseInt(octal[1], 8));
      i += octal[1].length;
    } else {
      bytes.push(simple[rest[0] ?? ''] ?? (rest.charCodeAt(0) || 92));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The paths in an strace log (`bwrap-args.ts` names the calls traced). Relative paths are taken against
 * the server's working directory (a server that changes directory is rare; its paths would be off).
 */
export function pathAccesses(log: string, cwd: string): PathAccess[] {
  const out: PathAccess[] = [];
  for (const line of log.split('\n')) {
    const match = CALL.exec(line);
    if (!match) continue;
    const [, call = '', args = '', , error] = match;
    const paths = [...args.matchAll(QUOTED)].map((m) => straceString(m[1] ?? ''));
    if (call === 'execve') paths.splice(1); // the program, not its arguments
    const writes = WRITING_CALLS.has(call) || (call.startsWith('open') && WRITE_FLAGS.test(args));
    // symlink's first string and rename's first are the source: reading it is not writing there.
    const targets = call.startsWith('symlink') ? paths.slice(-1) : paths;
    for (const path of targets) {
      if (path === '') continue;
      out.push({
        path: isAbsolute(path) ? path : resolve(cwd, path),
        access: writes ? 'write' : 'read',
        ...(error === undefined ? {} : { error }),
      });
    }
  }
  return out;
}
