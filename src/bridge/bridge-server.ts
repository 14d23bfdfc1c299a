import { resolve } from 'node:path';
import {
  type CallToolResult,
  type McpServerFactory,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { ValidateFunction } from 'ajv';
// Only the variables module: a bridge must not load the client-config formats to start.
import { expandVariables } from '../config/variables.js';
import { McpkitError } from '../errors/index.js';
import { childEnvironment } from '../internal/child-environment.js';
import { PACKAGE_VERSION } from '../internal/package-version.js';
import type { ResourceLimits } from '../internal/resource-limits.js';
// Not the serve/ barrel: a bridge on stdio must not load the HTTP stack to start.
import type { FrameIntercept } from '../serve/guarded-stdio.js';
import { modernResult } from '../serve/modern-result.js';
import { pageOf } from '../serve/pagination.js';
import { progressTokenOf } from '../serve/progress.js';
import { buildArgv } from './argv.js';
import { type Contract, durationMs, sizeBytes, type ToolContract } from './contract.js';
import { inputSchemaOf, lazyValidator, resolveArguments } from './input.js';
import { JobManager } from './jobs.js';
import type { LoadedContract } from './load-contract.js';
import { loadModuleTool, type ModuleTool, runModuleTool } from './module-tools.js';
import { confinePaths, type PathArguments, pathArgumentsOf } from './path-arguments.js';
import { progressReporter } from './progress.js';
import { toolResult } from './results.js';
import { runProgram } from './runner.js';

/** Options for {@link createBridge}. */
export interface BridgeOptions {
  /** Serve only tools annotated readOnlyHint: true. */
  readOnly?: boolean;
  /** Session default overrides (`--set key=value`). */
  set?: Record<string, unknown>;
  /**
   * The bridge's environment: `${VAR}` in `env` and path roots expands from it; tools get only its minimal
   * part (PATH, HOME, locale, proxy, CA) and what the contract's `inheritEnv` names. Default process.env.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Working directory when the contract names none; default process.cwd(). */
  cwd?: string;
}

/** A bridge ready to serve: the server factory, the exact tools/list, and shutdown. */
export interface Bridge {
  factory: McpServerFactory;
  /** The HTTP hot path (pass to `serveOverHttp`): plain tool calls answered without the SDK's passes. */
  intercept: FrameIntercept;
  tools: Tool[];
  jobs: JobManager;
  shutdown(): Promise<void>;
}

interface PreparedTool {
  name: string;
  contract: ToolContract;
  definition: Tool;
  validate: () => Promise<ValidateFunction>;
  paths: PathArguments;
  limits: ResourceLimits;
  module?: ModuleTool;
}

/** Builds a bridge from a loaded contract: every check that can fail does so here, before serving. */
export async function createBridge(loaded: LoadedContract, options: BridgeOptions = {}): Promise<Bridge> {
  const { contract } = loaded;
  const parentEnv = options.env ?? process.env;
  const env = childEnvironment(parentEnv, expandEnv(parentEnv, contract.env), contract.inheritEnv ?? false);
  const cwd = contract.cwd !== undefined ? resolve(loaded.dir, contract.cwd) : (options.cwd ?? process.cwd());
  const defaults = { ...(contract.defaults ?? {}), ...(options.set ?? {}) };
  const jobs = new JobManager();

  const prepared: PreparedTool[] = [];
  for (const [name, tool] of Object.entries(contract.tools)) {
    if (options.readOnly && tool.annotations?.readOnlyHint !== true) continue;
    const inputSchema = inputSchemaOf(tool);
    const definition: Tool = {
      name,
      ...(tool.title ? { title: tool.title } : {}),
      description: tool.description,
      inputSchema: inputSchema as Tool['inputSchema'],
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool['outputSchema'] } : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    };
    const entry: PreparedTool = {
      name,
      contract: tool,
      definition,
      validate: lazyValidator(inputSchema),
      paths: pathArgumentsOf(tool, loaded.dir, parentEnv, name),
      limits: limitsOf(tool, contract),
    };
    if (tool.module)
      entry.module = await loadModuleTool(resolve(loaded.dir, tool.module), tool.function ?? name, name);
    prepared.push(entry);
  }
  const background = prepared.some((t) => t.contract.background !== undefined);
  const tools = [...prepared.map((t) => t.definition), ...(background ? JOB_TOOLS : [])];
  const byName = new Map(prepared.map((t) => [t.name, t]));

  const call = async (
    name: string,
    given: Record<string, unknown> | undefined,
    ctx: ServerContext,
  ): Promise<CallToolResult> => {
    if (background && Object.hasOwn(JOB_HANDLERS, name))
      return JOB_HANDLERS[name as keyof typeof JOB_HANDLERS](jobs, given ?? {});
    const tool = byName.get(name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const resolved = resolveArguments(tool.contract, given, defaults, await tool.validate());
    if (!resolved.ok) return invalid(name, resolved.problems);
    const confined = await confinePaths(tool.paths, resolved.args, cwd);
    if (!confined.ok) return invalid(name, confined.problems);
    const args = confined.args;
    const progress = progressReporter(tool.contract.progress, ctx);
    if (tool.module) {
      const result = await runModuleTool(tool.module, { ...args }, ctx.mcpReq.signal, progress);
      await progress.flush();
      return result;
    }
    const argv = buildArgv(tool.contract.argv ?? [], args);
    if (!argv.ok) return invalid(name, argv.problems);
    const program = tool.contract.program ?? (contract.program as string);
    if (tool.contract.background !== undefined) {
      const template = tool.contract.background === true ? undefined : tool.contract.background.url;
      const url = template?.replace(/\{([A-Za-z_][A-Za-z0-9_-]*)\}/g, (_, key: string) =>
        String(args[key] ?? ''),
      );
      try {
        const job = await jobs.start(name, program, argv.argv, cwd, env, url, tool.limits);
        return { content: [{ type: 'text', text: JSON.stringify(job) }], structuredContent: { ...job } };
      } catch (error) {
        return {
          content: [{ type: 'text', text: `cannot start ${program}: ${(error as Error).message}` }],
          isError: true,
        };
      }
    }
    const timeoutMs = durationMs(tool.contract.timeout ?? contract.timeout, 60_000);
    const run = await runProgram({
      program,
      argv: argv.argv,
      cwd,
      env,
      timeoutMs,
      graceMs: durationMs(tool.contract.grace ?? contract.grace, 5000),
      maxOutput: sizeBytes(tool.contract.maxOutput ?? contract.maxOutput, 1024 * 1024),
      limits: tool.limits,
      signal: ctx.mcpReq.signal,
      ...(progress.onLine ? { onLine: progress.onLine } : {}),
    });
    await progress.flush();
    return toolResult(tool.contract, program, run, timeoutMs, tool.limits);
  };

  const factory: McpServerFactory = () => {
    const server = new Server(serverInfo, {
      capabilities: { tools: {}, logging: {} },
      ...(contract.instructions ? { instructions: contract.instructions } : {}),
    });
    server.setRequestHandler('tools/list', async (request) => pageOf(tools, request.params?.cursor, 'tools'));
    server.setRequestHandler('tools/call', (request, ctx) =>
      call(request.params.name, request.params.arguments as Record<string, unknown> | undefined, ctx),
    );
    return server;
  };

  // The contract's own version when it gives one; else the version of mcpkit, which serves it.
  const serverInfo = { name: contract.name, version: contract.version ?? PACKAGE_VERSION };
  // Over HTTP a 2026-07-28 tools/call without a progress token needs nothing the SDK's per-request server
  // instance provides: the call runs with the request's abort signal and the answer goes straight back.
  const intercept: FrameIntercept = (message, reply, context) => {
    const request = message as { id?: string | number; method?: unknown; params?: Record<string, unknown> };
    const params = request.params;
    if (!context || request.method !== 'tools/call' || request.id === undefined) return false;
    if (typeof params?.name !== 'string' || progressTokenOf(params._meta) !== undefined) return false;
    const args = params.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
      return false;
    const ctx = { mcpReq: { signal: context.signal, _meta: params._meta, notify: async () => undefined } };
    const id = request.id;
    call(params.name, args as Record<string, unknown> | undefined, ctx as unknown as ServerContext).then(
      (result) =>
        reply({
          jsonrpc: '2.0',
          id,
          result: modernResult(result as Record<string, unknown>, serverInfo),
        } as never),
      (error: { code?: unknown; message?: string }) => {
        const code = typeof error.code === 'number' ? error.code : ProtocolErrorCode.InternalError;
        return reply({
          jsonrpc: '2.0',
          id,
          error: { code, message: error.message ?? String(error) },
        } as never);
      },
    );
    return true;
  };

  return { factory, intercept, tools, jobs, shutdown: () => jobs.stopAll() };
}

function invalid(name: string, problems: string[]): CallToolResult {
  return {
    content: [
      {
        type: 'text',
        text: `Invalid arguments for ${name}; nothing was run:\n${problems.map((p) => `- ${p}`).join('\n')}`,
      },
    ],
    isError: true,
  };
}

/** A tool's memory and CPU limits (its own, else the contract's); CPU in whole seconds, at least one. */
function limitsOf(tool: ToolContract, contract: Contract): ResourceLimits {
  const memory = tool.memory ?? contract.memory;
  const cpu = tool.cpu ?? contract.cpu;
  return {
    ...(memory === undefined ? {} : { memoryBytes: sizeBytes(memory, 0) }),
    ...(cpu === undefined ? {} : { cpuSeconds: Math.max(1, Math.ceil(durationMs(cpu, 0) / 1000)) }),
  };
}

/** The contract's `env` with `${VAR}`s expanded; an unset variable is an error now, not at call time. */
function expandEnv(
  parent: Readonly<Record<string, string | undefined>>,
  extra: Record<string, string> | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(extra ?? {})) {
    env[key] = expandVariables(value, parent, (name) => {
      throw new McpkitError(
        'CONTRACT_INVALID',
        `env.${key} uses \${${name}}, which is not set; set it or write \${${name}:-default}`,
      );
    });
  }
  return env;
}

/** The job tools added when any tool runs in the background. */
const JOB_TOOLS: Tool[] = [
  {
    name: 'jobs_list',
    description: 'List the background jobs this bridge started: id, tool, pid, url, status, exit code.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'job_output',
    description: 'The last lines of a background job’s stdout and stderr.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The job id' },
        lines: { type: 'integer', minimum: 1, default: 50, description: 'How many lines of each' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'job_stop',
    description: 'Stop a background job and its whole process group.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', description: 'The job id' } },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: { destructiveHint: true },
  },
];

const text = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  structuredContent: value as Record<string, unknown>,
});
const noJob = (id: unknown): CallToolResult => ({
  content: [{ type: 'text', text: `no job ${String(id)}` }],
  isError: true,
});

const JOB_HANDLERS = {
  jobs_list: async (jobs: JobManager) => text({ jobs: jobs.list() }),
  job_output: async (jobs: JobManager, args: Record<string, unknown>) => {
    const output = jobs.output(String(args.id), typeof args.lines === 'number' ? args.lines : 50);
    return output ? text(output) : noJob(args.id);
  },
  job_stop: async (jobs: JobManager, args: Record<string, unknown>) => {
    const job = await jobs.stop(String(args.id));
    return job ? text({ job }) : noJob(args.id);
  },
};
