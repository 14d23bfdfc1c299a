import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Root,
} from '@modelcontextprotocol/client';

/** Context a host handler gets: which server asked. */
export interface HandlerContext {
  server: string;
}

/**
 * Handlers the host supplies for server-to-client requests. A capability is advertised only when its
 * handler is given, so servers never ask for what the host cannot do.
 */
export interface RuntimeHandlers {
  sampling?: (params: CreateMessageRequestParams, ctx: HandlerContext) => Promise<CreateMessageResult>;
  elicitation?: (params: ElicitRequestParams, ctx: HandlerContext) => Promise<ElicitResult>;
  roots?: (ctx: HandlerContext) => Promise<Root[]>;
}

/** The client capabilities the given handlers call for. */
export function capabilitiesFor(handlers: RuntimeHandlers): ClientCapabilities {
  return {
    ...(handlers.sampling ? { sampling: {} } : {}),
    ...(handlers.elicitation ? { elicitation: { form: {} } } : {}),
    ...(handlers.roots ? { roots: { listChanged: true } } : {}),
  };
}
