import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { failedResult, SERVER_INFO_META_KEY as SERVER_INFO } from '../serve/index.js';
import { markUnavailable } from './observers/call-events.js';

/**
 * The result without `resultType` and the upstream's own `_meta` server info (the serving side adds its
 * own). `inPlace` edits the object itself (a freshly parsed frame nobody else holds).
 */
export function withoutServerInfo(result: Record<string, unknown>, inPlace = false): Record<string, unknown> {
  const out = inPlace ? result : { ...result };
  delete out.resultType;
  const meta = out._meta as Record<string, unknown> | undefined;
  if (!meta || !(SERVER_INFO in meta)) return out;
  const others = inPlace ? meta : { ...meta };
  delete others[SERVER_INFO];
  if (Object.keys(others).length > 0) out._meta = others;
  else delete out._meta;
  return out;
}

/** A relayed result as the SDK server's handler returns it. */
export const asCallToolResult = (result: Record<string, unknown>) => result as unknown as CallToolResult;

/** The answer to a call whose server cannot take it now: a tool error the model can read, not a protocol error. */
export function unavailable(name: string, why: string): CallToolResult {
  return markUnavailable(failedResult(`Tool ${name} is unavailable: ${why}`));
}

/** Runs an upstream request; its protocol errors reach the client with their code, local failures as internal errors. */
export async function relay<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof ProtocolError) throw new ProtocolError(error.code, error.message, error.data);
    const message = error instanceof Error ? error.message : String(error);
    throw new ProtocolError(ProtocolErrorCode.InternalError, message);
  }
}
