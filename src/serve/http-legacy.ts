import type { RequestId } from '@modelcontextprotocol/server';
import { refusalOf, rpcError } from './http-answers.js';
import type { Admitted } from './http-guard.js';
import type { HttpSession } from './http-sessions.js';

/**
 * The 2025 era of the request path, inside a session (`Mcp-Session-Id`): GET opens its event stream,
 * DELETE ends it, a POST carries one frame. The transport keeps one stream per request id: a second
 * request with an id still in flight took the first one's stream and one of them never ended, so it is
 * refused; a request cancelled by `notifications/cancelled` gets no answer (MCP), so its stream is ended
 * here.
 */
export async function inSession(session: HttpSession, admitted: Admitted): Promise<Response> {
  const { incoming, authInfo, checked } = admitted;
  const auth = authInfo ? { authInfo } : {};
  if (incoming.method !== 'POST') {
    if (incoming.method === 'GET' || incoming.method === 'DELETE')
      return session.transport.handleRequest(incoming.toRequest(), auth);
    return new Response(null, { status: 405, headers: { allow: 'POST' } });
  }
  if (!checked?.ok) return refusalOf(checked ?? { ok: false });
  const message = checked.message;
  const id = message.id as RequestId | undefined;
  const isRequest = typeof message.method === 'string' && id !== undefined;
  if (isRequest) {
    if (session.inFlight.has(id))
      return rpcError(409, id, -32600, `Invalid Request: id ${JSON.stringify(id)} is already in use`);
    session.inFlight.add(id);
  }
  let response: Response | undefined;
  try {
    response = await session.transport.handleRequest(incoming.toRequest(), { parsedBody: message, ...auth });
  } finally {
    // Refused (or failed) before the server saw it: no answer will free the id.
    if (isRequest && (response === undefined || response.status >= 400)) session.inFlight.delete(id);
  }
  if (message.method === 'notifications/cancelled') {
    const cancelled = (message.params as { requestId?: RequestId } | undefined)?.requestId;
    if (cancelled !== undefined && session.inFlight.delete(cancelled))
      session.transport.closeSSEStream(cancelled);
  }
  return response;
}
