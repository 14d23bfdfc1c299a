// mcpkit/errors — everything exported here is public API: the one error type of local failures and its codes.
// Protocol failures are the SDK's `ProtocolError`; a tool that fails returns a result with `isError: true`.
export { isMcpkitError, McpkitError, type McpkitErrorCode, type McpkitErrorContext } from './mcpkit-error.js';
