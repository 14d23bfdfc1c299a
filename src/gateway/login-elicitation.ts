import { randomUUID } from 'node:crypto';
import type { ElicitRequestURLParams } from '@modelcontextprotocol/server';
import { type AuthorizationUrlHandler, NeedsLoginError } from '../client/index.js';
import type { Downstream, Downstreams } from './downstream.js';

/** The connected client that can open a URL for the user (URL-mode elicitation, 2025-11-25), if any. */
export function urlOpener(downstreams: Downstreams): Downstream | undefined {
  const latest = downstreams.latest();
  if (latest?.era !== 'legacy' || !latest.server.transport) return undefined;
  const elicitation = latest.server.getClientCapabilities()?.elicitation as { url?: unknown } | undefined;
  return elicitation?.url === undefined ? undefined : latest;
}

/**
 * The gateway's way to show an upstream's login: it asks the client to open the authorization URL
 * (URL-mode elicitation); the login completes when the user's browser comes back to the loopback redirect.
 * Without such a client, or when the user declines, the upstream needs `mcpkit auth login` instead.
 */
export function loginByElicitation(downstreams: Downstreams): AuthorizationUrlHandler {
  return async (url, server) => {
    const client = urlOpener(downstreams);
    if (!client) throw new NeedsLoginError(server, 'none');
    const params: ElicitRequestURLParams = {
      mode: 'url',
      message: `Log in to "${server}" so the mcpkit gateway can use its tools.`,
      url: url.href,
      elicitationId: randomUUID(),
    };
    const answer = await client.server.elicitInput(params);
    if (answer.action !== 'accept') throw new NeedsLoginError(server, 'none');
  };
}
