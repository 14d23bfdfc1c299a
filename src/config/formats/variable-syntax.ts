import { findVariables, replaceVariables } from '../variables.js';

/**
 * How a client writes environment references in its config:
 * - `posix`: `${VAR}` and `${VAR:-default}`, as mcpkit (Claude Code);
 * - `posix-plain`: `${VAR}` or `$VAR`, no defaults (Gemini CLI);
 * - `env-colon`: `${env:VAR}` plus editor variables such as `${workspaceFolder}` (VS Code, Cursor, Windsurf);
 * - `none`: strings are used as written (Claude Desktop, Cline, Codex).
 */
export type VariableStyle = 'posix' | 'posix-plain' | 'env-colon' | 'none';

/**
 * The variables VS Code and its forks (Cursor, Windsurf) resolve themselves. They look like mcpkit's
 * `${NAME}`, but writing them back as `${env:NAME}` would turn them into an (unset) environment variable.
 */
export const EDITOR_VARIABLES: ReadonlySet<string> = new Set([
  'workspaceFolder',
  'workspaceFolderBasename',
  'workspaceRoot',
  'file',
  'fileWorkspaceFolder',
  'relativeFile',
  'relativeFileDirname',
  'fileBasename',
  'fileBasenameNoExtension',
  'fileExtname',
  'fileDirname',
  'fileDirnameBasename',
  'cwd',
  'lineNumber',
  'selectedText',
  'execPath',
  'defaultBuildTask',
  'pathSeparator',
  'userHome',
]);

const EDITOR_VARIABLE = /\$\{([A-Za-z]+)(?::([^}]*))?\}/g;

/** Rewrites a client's references into mcpkit's `${VAR}` form, noting the ones that cannot be. */
export function importVariables(
  text: string,
  style: VariableStyle,
  where: string,
  label: string,
  notes: string[],
): string {
  if (style === 'posix' || style === 'none') return text;
  if (style === 'posix-plain') return text.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, '${$1}');
  return text.replace(EDITOR_VARIABLE, (raw, kind: string, arg: string | undefined) => {
    if (kind === 'env' && arg && /^[A-Za-z_][A-Za-z0-9_]*$/.test(arg)) return `\${${arg}}`;
    if (kind === 'userHome' && arg === undefined) return '${HOME}';
    if (kind === 'input') {
      notes.push(
        `${where} uses ${raw}, which only ${label} can resolve (it prompts for it); set the value by hand`,
      );
    } else if (arg !== undefined || !/^[A-Z_][A-Z0-9_]*$/.test(kind)) {
      notes.push(`${where} uses ${raw}, which only ${label} can resolve; kept as written`);
    }
    return raw;
  });
}

/** Rewrites mcpkit's references into a client's form, noting what the client cannot express. */
export function exportVariables(
  text: string,
  style: VariableStyle,
  where: string,
  label: string,
  notes: string[],
): string {
  if (style === 'posix') return text;
  if (style === 'none') {
    const refs = findVariables(text);
    if (refs.length > 0) {
      const names = refs.map((r) => r.raw).join(', ');
      notes.push(`${where}: ${label} does not expand ${names}; written as is`);
    }
    return text;
  }
  return replaceVariables(text, (ref) => {
    if (style === 'env-colon' && ref.default === undefined && EDITOR_VARIABLES.has(ref.name)) return ref.raw;
    if (ref.default !== undefined) {
      notes.push(`${where}: ${label} has no defaults; "${ref.raw}" written without its default`);
    }
    return style === 'env-colon' ? `\${env:${ref.name}}` : `\${${ref.name}}`;
  });
}
