import { formatJsonPath } from './schema.js';

/** Every key mcpkit reads in a server entry (stdio and remote). */
const KNOWN_KEYS = [
  'type',
  'command',
  'args',
  'env',
  'cwd',
  'inheritEnv',
  'url',
  'headers',
  'timeout',
  'startupTimeout',
  'disabled',
  'includeTools',
  'excludeTools',
  'alwaysLoad',
  'prefix',
  'rename',
] as const;

/** An entry key mcpkit does not read that is one typo away from one it does. */
export interface KeyHint {
  key: string;
  suggestion: string;
}

/**
 * Unknown keys of an entry that look like typos of known ones (`comand`, `tiemout`, `Args`). Entries are
 * loose objects so other tools' keys survive; a key this close to one of ours is far more likely a typo
 * than another tool's setting, and a typo silently does nothing.
 */
export function keyHints(value: unknown): KeyHint[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const hints: KeyHint[] = [];
  for (const key of Object.keys(value)) {
    if ((KNOWN_KEYS as readonly string[]).includes(key)) continue;
    const suggestion = closestKey(key);
    if (suggestion) hints.push({ key, suggestion });
  }
  return hints;
}

/** The hints as one message: `unknown key "comand" at mcpServers.x: did you mean "command"?`. */
export function formatKeyHints(hints: readonly KeyHint[], at: readonly (string | number)[] = []): string {
  return hints
    .map((h) => {
      const where = at.length > 0 ? ` at ${formatJsonPath(at)}` : '';
      return `unknown key "${h.key}"${where}: did you mean "${h.suggestion}"?`;
    })
    .join('; ');
}

function closestKey(key: string): string | undefined {
  const lower = key.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const known of KNOWN_KEYS) {
    const distance = editDistance(lower, known.toLowerCase());
    // One edit for short keys, two for longer ones: close enough to be a typo, far enough not to guess.
    const allowed = known.length <= 4 ? 1 : 2;
    if (distance <= allowed && (best === undefined || distance < best.distance))
      best = { key: known, distance };
  }
  return best?.key;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = d;
    }
  }
  return at(a.length, b.length);
}
