import { MASK, maskUrl } from './mask.js';
import { findVariables } from './variables.js';

/** Names of settings that hold secrets: `GITHUB_TOKEN`, `api-key`, `X-Api-Key`, `DB_PASSWORD`, `Authorization`. */
const SECRET_NAME = /token|secret|key|password|passwd|credential|auth/i;

// Prefixes of well-known credentials; the rest of the value is long random text.
const TOKEN_PREFIXES = [
  /^sk-[A-Za-z0-9_-]{16,}/, // OpenAI, Anthropic (sk-ant-…)
  /^(sk|pk|rk)_(live|test)_[A-Za-z0-9]{16,}/, // Stripe
  /^gh[pousr]_[A-Za-z0-9]{20,}/, // GitHub
  /^github_pat_[A-Za-z0-9_]{20,}/,
  /^glpat-[A-Za-z0-9_-]{16,}/, // GitLab
  /^xox[abprs]-[A-Za-z0-9-]{10,}/, // Slack
  /^AKIA[0-9A-Z]{16}$/, // AWS access key id
  /^AIza[0-9A-Za-z_-]{30,}/, // Google API key
  /^npm_[A-Za-z0-9]{30,}/,
  /^lin_api_[A-Za-z0-9]{20,}/, // Linear
  /^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./, // a JWT
];

/**
 * True for a value that looks like a credential: a known token prefix, or 32+ characters of mixed-case
 * letters and digits with no path or word structure (random text; a 40-hex commit id is not).
 */
export function looksLikeToken(value: string): boolean {
  const text = value.replace(/^Bearer\s+/i, '');
  if (TOKEN_PREFIXES.some((prefix) => prefix.test(text))) return true;
  return (
    text.length >= 32 &&
    /^[A-Za-z0-9_+/=.-]+$/.test(text) &&
    !text.includes('/') &&
    /[a-z]/.test(text) &&
    /[A-Z]/.test(text) &&
    /[0-9]/.test(text)
  );
}

/** True for a value written literally (no `${VAR}` in it), so the secret itself sits in the file. */
function isLiteral(value: string): boolean {
  return value !== '' && findVariables(value).length === 0 && !/\$\{[^}]+\}|\$[A-Za-z_]/.test(value);
}

/** A setting named like a secret whose value is written out (not a path, not a flag value like `true`). */
export function isPlainSecret(name: string, value: string): boolean {
  if (!isLiteral(value)) return false;
  if (looksLikeToken(value)) return true;
  if (!SECRET_NAME.test(name)) return false;
  if (/^(true|false|yes|no|on|off|none|\d+)$/i.test(value)) return false;
  // A key *file* (SSH_KEY_PATH=/home/me/.ssh/id) is a path, not the secret.
  return !/^(~|\.{0,2}\/|[A-Za-z]:\\)/.test(value);
}

/**
 * The indexes of arguments that carry a secret: a token-like value, the value after a flag named like a
 * secret (`--api-key VALUE`, `--token=VALUE`), or a header argument with one (`Authorization: Bearer …`).
 */
export function secretArgs(args: readonly string[]): number[] {
  const found: number[] = [];
  args.forEach((arg, i) => {
    const flagged = /^--?([A-Za-z0-9_-]+)=(.*)$/s.exec(arg);
    const header = /^([A-Za-z0-9-]+)\s*:\s*(.+)$/s.exec(arg);
    const previous = i > 0 ? /^--?([A-Za-z0-9_-]+)$/.exec(args[i - 1] as string) : null;
    if (
      (isLiteral(arg) && looksLikeToken(arg)) ||
      (flagged?.[1] && flagged[2] !== undefined && isPlainSecret(flagged[1], flagged[2])) ||
      (header?.[1] && header[2] !== undefined && isPlainSecret(header[1], header[2])) ||
      (previous?.[1] && SECRET_NAME.test(previous[1]) && isPlainSecret(previous[1], arg))
    ) {
      found.push(i);
    }
  });
  return found;
}

/** The arguments with every secret one replaced by `***` (for printing a command line). */
export function maskArgs(args: readonly string[]): string[] {
  const secret = new Set(secretArgs(args));
  return args.map((arg, i) => {
    if (!secret.has(i)) return arg;
    const flagged = /^(--?[A-Za-z0-9_-]+=|[A-Za-z0-9-]+\s*:\s*)/.exec(arg);
    return flagged ? `${flagged[1]}${MASK}` : MASK;
  });
}

/**
 * A copy of a JSON value safe to show (tool arguments and results on the gateway's dashboard): a string
 * under a key named like a secret, or one that looks like a token, becomes `***` (wherever it is nested),
 * and so does a token-like word in free text; URLs lose their password and credential-like query values.
 */
export function maskSecretsIn(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    if (looksLikeToken(value) || (key !== '' && SECRET_NAME.test(key) && value !== '')) return MASK;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return maskUrl(value);
    // A token inside free text ("created key sk-…"): each long word is checked on its own.
    return value.replace(/[A-Za-z0-9_+/=.-]{16,}/g, (word) => (looksLikeToken(word) ? MASK : word));
  }
  if (Array.isArray(value)) return value.map((item) => maskSecretsIn(item, key));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecretsIn(v, k)]));
  return value;
}
