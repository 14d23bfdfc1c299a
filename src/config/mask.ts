import { isStdioServer, type ServerEntry } from './schema.js';

/** What a masked secret looks like. */
export const MASK = '***';

const SECRET_QUERY_KEY = /key|token|secret|password|passwd|auth|sig|credential/i;

/**
 * A copy of an entry safe to print: every env and header value becomes `***`, and so do a URL's password
 * and query values whose names look like credentials (`?api_key=…`).
 */
export function maskEntry<T extends ServerEntry>(entry: T): T {
  const maskValues = (record: Record<string, string> | undefined) =>
    record && Object.fromEntries(Object.keys(record).map((key) => [key, MASK]));
  if (isStdioServer(entry)) {
    const env = maskValues(entry.env);
    return env ? { ...entry, env } : entry;
  }
  const headers = maskValues(entry.headers);
  const masked = { ...entry, url: maskUrl(entry.url) };
  if (headers) masked.headers = headers;
  if (entry.oauth) {
    const { clientSecret, privateKey } = entry.oauth;
    masked.oauth = {
      ...entry.oauth,
      ...(clientSecret === undefined ? {} : { clientSecret: MASK }),
      ...(privateKey === undefined ? {} : { privateKey: MASK }),
    };
  }
  return masked;
}

/** Masks the password and credential-like query values of a URL; leaves unparsable text as it is. */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let changed = false;
  if (parsed.password) {
    parsed.password = 'MASKED';
    changed = true;
  }
  for (const key of secretQueryKeys(parsed)) {
    parsed.searchParams.set(key, 'MASKED');
    changed = true;
  }
  // URL would percent-encode "***", so a placeholder is swapped in afterwards.
  return changed ? parsed.toString().replaceAll('MASKED', MASK) : url;
}

/** The query parameters of a URL whose names look like credentials (`api_key`, `token`, `sig`…). */
export function secretQueryKeys(url: URL): string[] {
  return [...new Set(url.searchParams.keys())].filter((key) => SECRET_QUERY_KEY.test(key));
}
