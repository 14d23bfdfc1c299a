import { secretQueryKeys } from './mask.js';
import { isStdioServer, type ServerEntry } from './schema.js';
import { isPlainSecret, secretArgs } from './secrets.js';

/** One secret taken out of an entry: where it was (`env.API_KEY`) and the variable that now stands for it. */
export interface MovedSecret {
  where: string;
  variable: string;
}

/**
 * Names already given to a secret in one import, so that two servers' different `API_KEY`s do not end
 * up behind one variable while the same value under the same name shares it. Values stay in memory only.
 */
export type VariableNames = Map<string, string>;

/**
 * The entry with every secret written out in it (env and header values, secret arguments, credential
 * query values of its URL — what `doctor` flags, found by the same checks) replaced by a `${VAR}`
 * reference, and the list of what moved. The caller tells the user which variables to set; the values
 * themselves are never returned.
 */
export function moveSecretsToVariables(
  server: string,
  entry: ServerEntry,
  names: VariableNames = new Map(),
): { entry: ServerEntry; moved: MovedSecret[] } {
  const moved: MovedSecret[] = [];
  const take = (where: string, wanted: string, value: string): string => {
    const variable = freeName(names, wanted, server, value);
    moved.push({ where, variable });
    return `\${${variable}}`;
  };
  if (isStdioServer(entry)) {
    const out: ServerEntry = { ...entry };
    if (entry.env) {
      out.env = Object.fromEntries(
        Object.entries(entry.env).map(([key, value]) => [
          key,
          isPlainSecret(key, value) ? take(`env.${key}`, key, value) : value,
        ]),
      );
    }
    if (entry.args) {
      const args = [...entry.args];
      for (const i of secretArgs(args)) {
        const arg = args[i] as string;
        // Keep `--token=` / `Header: ` / `Bearer ` and move only the value.
        const split = /^(--?([A-Za-z0-9_-]+)=|([A-Za-z0-9-]+)\s*:\s*)?(Bearer\s+)?(.*)$/s.exec(arg);
        const label = split?.[2] ?? split?.[3] ?? previousFlag(args, i) ?? `arg_${i}`;
        const keep = `${split?.[1] ?? ''}${split?.[4] ?? ''}`;
        args[i] = `${keep}${take(`args[${i}]`, `${server}_${label}`, split?.[5] ?? arg)}`;
      }
      out.args = args;
    }
    return { entry: out, moved };
  }
  const out: ServerEntry = { ...entry, url: moveUrlSecrets(entry.url, server, take) };
  if (entry.headers) {
    out.headers = Object.fromEntries(
      Object.entries(entry.headers).map(([key, value]) => {
        if (!isPlainSecret(key, value)) return [key, value];
        const bearer = /^Bearer\s+/i.exec(value)?.[0] ?? '';
        return [key, `${bearer}${take(`headers.${key}`, `${server}_${key}`, value.slice(bearer.length))}`];
      }),
    );
  }
  return { entry: out, moved };
}

type Take = (where: string, wanted: string, value: string) => string;

/** The URL with its password and credential-like query values (`?api_key=…`) as references. */
function moveUrlSecrets(url: string, server: string, take: Take): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let out = url;
  if (parsed.password) {
    const raw = `:${parsed.password}@`;
    out = out.replace(raw, `:${take('url password', `${server}_password`, parsed.password)}@`);
  }
  for (const key of secretQueryKeys(parsed)) {
    const value = parsed.searchParams.get(key) ?? '';
    if (value === '' || value.includes('${')) continue;
    // Replaced in the text as written, so the rest of the URL keeps its spelling.
    const pattern = new RegExp(`([?&]${escapeRegExp(encodeURIComponent(key))}=)[^&#]*`);
    out = out.replace(
      pattern,
      (_m, head: string) => `${head}${take(`url ?${key}`, `${server}_${key}`, value)}`,
    );
  }
  return out;
}

function previousFlag(args: readonly string[], i: number): string | undefined {
  return i > 0 ? /^--?([A-Za-z0-9_-]+)$/.exec(args[i - 1] as string)?.[1] : undefined;
}

/** A variable name for a secret: `wanted` made a valid name, else with the server's name, else numbered. */
function freeName(names: VariableNames, wanted: string, server: string, value: string): string {
  const base = variableName(wanted);
  for (const candidate of [base, variableName(`${server}_${wanted}`)]) {
    const held = names.get(candidate);
    if (held === undefined || held === value) {
      names.set(candidate, value);
      return candidate;
    }
  }
  for (let n = 2; ; n++) {
    const candidate = `${base}_${n}`;
    const held = names.get(candidate);
    if (held === undefined || held === value) {
      names.set(candidate, value);
      return candidate;
    }
  }
}

/** `my-notes_X-Api-Key` → `MY_NOTES_X_API_KEY`; an env key that is a valid name already stays as it is. */
function variableName(text: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(text) && text === text.toUpperCase()) return text;
  const name = text
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return /^[0-9]/.test(name) || name === '' ? `_${name}` : name;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
