import { Client } from '@modelcontextprotocol/client';
import type { ConnectionContext } from './connection-context.js';
import type { ListKind } from './events.js';
import { capabilitiesFor } from './handlers.js';

/**
 * The SDK client of one connection: capabilities from the host's handlers, server-to-client requests
 * routed to them, and the server's logs, resource updates and list changes turned into Runtime events.
 */
export function createSdkClient(
  server: string,
  ctx: ConnectionContext,
  onListChanged: (list: ListKind) => void,
): Client {
  const refresh = (list: ListKind) => ({
    autoRefresh: false,
    debounceMs: 0,
    onChanged: () => {
      onListChanged(list);
      ctx.emit('list_changed', { server, list });
    },
  });
  const client = new Client(ctx.clientInfo, {
    capabilities: capabilitiesFor(ctx.handlers),
    versionNegotiation: { mode: 'auto' },
    listChanged: { tools: refresh('tools'), resources: refresh('resources'), prompts: refresh('prompts') },
  });
  const { sampling, elicitation, roots } = ctx.handlers;
  const asker = { server };
  if (sampling) client.setRequestHandler('sampling/createMessage', (req) => sampling(req.params, asker));
  if (elicitation) client.setRequestHandler('elicitation/create', (req) => elicitation(req.params, asker));
  if (roots) client.setRequestHandler('roots/list', async () => ({ roots: await roots(asker) }));
  client.setNotificationHandler('notifications/message', (note) => {
    const { level, logger, data } = note.params;
    ctx.emit('server_log', { server, level, data, ...(logger === undefined ? {} : { logger }) });
  });
  client.setNotificationHandler('notifications/resources/updated', (note) => {
    ctx.emit('resource_updated', { server, uri: note.params.uri });
  });
  // Protocol errors from a misbehaving server must not crash the host; calls report their own failures.
  client.onerror = () => undefined;
  return client;
}
