import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { isAbsolute, posix, win32 } from 'node:path';

/**
 * The PATH a GUI client (Claude Desktop, Cursor, VS Code, Windsurf, Cline) gets when started from the
 * dock or a desktop launcher, which never reads the shell's rc files — so nvm, volta, Homebrew on Apple
 * silicon and `~/.local/bin` are missing and "spawn npx ENOENT" follows:
 * - macOS: launchd's `/usr/bin:/bin:/usr/sbin:/sbin`;
 * - Linux: systemd's default user PATH;
 * - Windows: the PATH from the registry, the same the shell starts with (so the shell's PATH is used).
 */
export function guiPath(platform: NodeJS.Platform, shellPath: string): string {
  if (platform === 'darwin') return '/usr/bin:/bin:/usr/sbin:/sbin';
  if (platform === 'win32') return shellPath;
  return '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
}

/** The PATH separator of a platform (`;` on Windows). */
export function pathDelimiter(platform: NodeJS.Platform): string {
  return platform === 'win32' ? ';' : ':';
}

/**
 * Where `command` resolves on `path`: the first executable file, or undefined. A command with a directory
 * in it is checked as it stands. On Windows each PATHEXT extension is tried, as the shell does.
 */
export async function findCommand(
  command: string,
  path: string,
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<string | undefined> {
  const paths = platform === 'win32' ? win32 : posix;
  const extensions =
    platform === 'win32' && !/\.[A-Za-z0-9]+$/.test(command)
      ? (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '')
      : [''];
  const candidates = hasDirectory(command, platform)
    ? [command]
    : path
        .split(pathDelimiter(platform))
        .filter((dir) => dir !== '')
        .map((dir) => paths.join(dir, command));
  for (const candidate of candidates) {
    for (const extension of extensions) {
      if (await isExecutable(candidate + extension, platform)) return candidate + extension;
    }
  }
  return undefined;
}

/** True when the command names a file by path (`./run.sh`, `/usr/bin/node`, `C:\\x\\node.exe`). */
export function hasDirectory(command: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' ? /[\\/]/.test(command) : command.includes('/');
}

/** True when a command path is relative to a working directory (`./server`, `bin/run`). */
export function isRelativeCommand(command: string, platform: NodeJS.Platform): boolean {
  if (!hasDirectory(command, platform)) return false;
  return platform === 'win32' ? !win32.isAbsolute(command) : !isAbsolute(command);
}

async function isExecutable(file: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    // Windows has no execute bit: an existing file with a PATHEXT extension runs.
    if (platform !== 'win32') await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
