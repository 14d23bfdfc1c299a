import { type ProtocolEra, Server } from '@modelcontextprotocol/server';
import { type Endpoint, SERVER_INFO } from './endpoint.js';
import { installSkillHandlers } from './extensions/skill-handlers.js';
import { installHandlers } from './proxy-handlers.js';

/**
 * One SDK server instance of an endpoint, for one client (2025: a connection) or one request (2026-07-28
 * over HTTP): what the ready upstreams offer, the gateway's handlers, and its client tracked as a downstream.
 */
export function createServer(era: ProtocolEra, endpoint: Endpoint): Server {
  const { live, downstreams, upstreams, calls, tasks, results } = endpoint.parts;
  const advertised = live.advertised();
  const { instructions } = advertised;
  // A 2025 client may call any tool as a task (the 2026-07-28 revision moved tasks to an extension).
  const capabilities =
    era === 'legacy' ? { ...advertised.capabilities, tasks: tasks.offered } : advertised.capabilities;
  const server = new Server(SERVER_INFO, { capabilities, ...(instructions ? { instructions } : {}) });
  const downstream = downstreams.track(server, era, ({ identity }) => {
    if (identity !== undefined) endpoint.deferral.forget(identity);
  });
  const { view, parts } = endpoint;
  endpoint.host ??= {
    catalog: endpoint.catalog,
    listedTools: (catalog, identity) => endpoint.deferral.listed(catalog, identity),
    router: endpoint.router,
    statusJson: () =>
      JSON.stringify(
        { ...(view ? { profile: view.name } : {}), servers: parts.status(), clients: downstreams.size },
        null,
        2,
      ),
    upstreams,
    downstreams,
    tasks: tasks.handlers,
    results,
  };
  if (calls.observesRequests) calls.observeRequests(server, era);
  installHandlers(server, downstream, capabilities, endpoint.host);
  installSkillHandlers(server, downstream, capabilities, endpoint.host);
  return server;
}
