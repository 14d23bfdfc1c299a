// mcpkit/bridge — everything exported here is public API.
export { buildArgv } from './argv.js';
export { type Bridge, type BridgeOptions, createBridge } from './bridge-server.js';
export {
  type ArgvWord,
  type Contract,
  ContractSchema,
  type ToolContract,
  ToolContractSchema,
} from './contract.js';
export { inputSchemaOf } from './input.js';
export { type ContractProblem, type LoadedContract, loadContract, parseContract } from './load-contract.js';
export type { ModuleToolFunction } from './module-tools.js';
