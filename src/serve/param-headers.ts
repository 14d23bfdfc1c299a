/**
 * SEP-2243 on the serving side: a 2026-07-28 `tools/call` over HTTP mirrors each argument its tool's schema
 * marks `x-mcp-header: Name` into an `Mcp-Param-Name` header, and the server must refuse (400, -32020) a call
 * whose header is missing, not decodable, or disagrees with the body. The SDK checks this only for tools an
 * `McpServer` registered itself; a proxy (the gateway) knows its tools from upstream listings, so it checks
 * here, for every path a call can take.
 */

interface Declaration {
  header: string;
  path: string[];
  numeric: boolean;
}

const SENTINEL = /^=\?base64\?(.*)\?=$/;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The `x-mcp-header` declarations of a tool's input schema (reachable through `properties` only). */
function declarationsOf(schema: unknown, path: string[] = [], found: Declaration[] = []): Declaration[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return found;
  for (const [key, property] of Object.entries(properties)) {
    const p = property as { 'x-mcp-header'?: unknown; type?: unknown };
    if (typeof p?.['x-mcp-header'] === 'string' && p['x-mcp-header'] !== '')
      found.push({
        header: p['x-mcp-header'],
        path: [...path, key],
        numeric: p.type === 'integer' || p.type === 'number',
      });
    declarationsOf(property, [...path, key], found);
  }
  return found;
}

function decoded(value: string): string | undefined {
  const sentinel = SENTINEL.exec(value);
  if (!sentinel) return value;
  const base64 = sentinel[1] ?? '';
  if (!CANONICAL_BASE64.test(base64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Why a call's `Mcp-Param-*` headers do not match its arguments (undefined when they do, or the tool marks
 * none). `header` reads a request header by its lower-case name.
 */
export function paramHeaderMismatch(
  inputSchema: unknown,
  args: unknown,
  header: (name: string) => string | null | undefined,
): string | undefined {
  for (const declaration of declarationsOf(inputSchema)) {
    let body: unknown = args;
    for (const key of declaration.path)
      body =
        typeof body === 'object' && body !== null && Object.hasOwn(body, key)
          ? (body as Record<string, unknown>)[key]
          : undefined;
    const expected = asText(body);
    if (expected === undefined) continue;
    const name = `Mcp-Param-${declaration.header}`;
    const raw = header(name.toLowerCase());
    if (raw == null) return `the body carries ${declaration.path.join('.')} but the ${name} header is absent`;
    const value = decoded(raw.trim());
    if (value === undefined) return `the ${name} header is not valid Base64`;
    const same = declaration.numeric ? Number(value) === Number(expected) : value === expected;
    if (!same) return `the ${name} header does not match ${declaration.path.join('.')} in the body`;
  }
  return undefined;
}
