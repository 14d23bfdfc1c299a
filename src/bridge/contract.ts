import { z } from 'zod';

/**
 * The bridge contract: one YAML file that is the single source of truth for every tool's name,
 * description, input schema and how its arguments become argv. `schemas/bridge-contract.schema.json` is
 * generated from these schemas for editor completion.
 */

/** `30s`, `500ms`, `2m`, or a number of milliseconds. */
export const DurationSchema = z
  .union([
    z.number().int().positive(),
    z.string().regex(/^\d+(\.\d+)?(ms|s|m)$/, 'a duration like 500ms, 30s or 2m'),
  ])
  .describe('A duration: 500ms, 30s, 2m, or milliseconds as a number');

/** `1MiB`, `512KiB`, or a number of bytes. */
export const SizeSchema = z
  .union([
    z.number().int().positive(),
    z.string().regex(/^\d+(KiB|MiB|GiB|B)$/, 'a size like 512KiB or 1MiB'),
  ])
  .describe('A size: 512KiB, 1MiB, or bytes as a number');

/**
 * An argument that names a file or directory: its value is resolved (symlinks too) and must lie inside one of
 * `roots`, or inside the value of another path argument (`within`). The program gets the resolved path.
 */
export const PathRuleSchema = z
  .union([
    z.strictObject({
      roots: z
        .array(z.string().min(1))
        .min(1)
        .describe("Allowed directories: absolute, or relative to the contract's directory; ${VAR} expands"),
    }),
    z.strictObject({
      within: z
        .string()
        .describe('Another path argument: this one resolves against its value and must stay inside it'),
    }),
  ])
  .describe('A path argument: { roots: [dir, …] } or { within: otherArgument }');

/** One input argument: a JSON Schema property plus `required`. */
export const ArgumentSchema = z
  .looseObject({
    type: z.enum(['string', 'integer', 'number', 'boolean', 'array', 'object']),
    description: z.string().optional(),
    required: z.boolean().optional().describe('The caller must give it (unless a session default does)'),
    default: z.unknown().optional(),
    enum: z.array(z.union([z.string(), z.number()])).optional(),
    items: z.looseObject({ type: z.enum(['string', 'integer', 'number', 'boolean']) }).optional(),
    path: PathRuleSchema.optional(),
  })
  .describe(
    'An input argument: JSON Schema keywords (type, description, enum, default, minimum, pattern, items…) plus required',
  );

export const SwitchWordSchema = z.strictObject({
  switch: z.string().min(1).describe('The flag added when the boolean argument is true, e.g. --verbose'),
  if: z.string().describe('The boolean argument'),
});

export const OptionWordSchema = z.strictObject({
  option: z.string().min(1).describe('The flag, e.g. --max-count; repeated for each item of an array'),
  value: z.string().describe('The argument whose value follows the flag'),
  join: z.literal('=').optional().describe('Write --flag=value as one word instead of two'),
});

/** One word of the argv template. */
export const ArgvWordSchema = z
  .union([
    z
      .string()
      .describe('A literal word; "$name" is the value of argument name (a positional); "$$" is a literal $'),
    SwitchWordSchema,
    OptionWordSchema,
  ])
  .describe('A literal word, "$arg", { switch, if } or { option, value, join? }');

/** Progress reporting: one notification per non-empty stdout line, or per match of a pattern. */
export const ProgressSchema = z.union([
  z.literal('lines'),
  z.strictObject({
    pattern: z.string().describe('A regular expression with named groups progress, total and/or message'),
  }),
]);

/** Limits shared by the server level and each tool. */
const limitsShape = {
  timeout: DurationSchema.optional().describe('Kill the process group after this long (default 60s)'),
  grace: DurationSchema.optional().describe('Between SIGTERM and SIGKILL on timeout or cancel (default 5s)'),
  maxOutput: SizeSchema.optional().describe('stdout kept per call (default 1MiB), then a truncation marker'),
  memory: SizeSchema.optional().describe(
    'Memory (heap and private mappings, RLIMIT_DATA) each process of a call may allocate; needs prlimit',
  ),
  cpu: DurationSchema.optional().describe(
    'CPU time each process of a call may use (RLIMIT_CPU, whole seconds); needs prlimit',
  ),
};

/** The zod schema of one tool of a contract (`tools.<name>`). */
export const ToolContractSchema = z
  .strictObject({
    description: z.string().min(1),
    title: z.string().optional(),
    annotations: z
      .strictObject({
        readOnlyHint: z.boolean().optional(),
        destructiveHint: z.boolean().optional(),
        idempotentHint: z.boolean().optional(),
        openWorldHint: z.boolean().optional(),
      })
      .optional(),
    program: z.string().min(1).optional().describe("The program to run; default: the contract's program"),
    args: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/), ArgumentSchema).optional(),
    argv: z
      .array(ArgvWordSchema)
      .optional()
      .describe('How the arguments become the command line (no shell, ever)'),
    output: z
      .enum(['text', 'json'])
      .optional()
      .describe('text: stdout as one text block; json: stdout parsed to structuredContent'),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    errorCodes: z
      .array(z.number().int())
      .optional()
      .describe('Exit codes that are errors; default: any non-zero exit is an error'),
    progress: ProgressSchema.optional(),
    background: z
      .union([z.literal(true), z.strictObject({ url: z.string().optional() })])
      .optional()
      .describe('Start the process and return a job id; see jobs_list, job_output, job_stop'),
    module: z
      .string()
      .optional()
      .describe('An in-process tool: a JS module exporting an async function named like the tool'),
    function: z.string().optional().describe('The export to call in module (default: the tool name)'),
    ...limitsShape,
  })
  .describe('A tool');

/** The zod schema of a bridge contract file; `schemas/contract.schema.json` is generated from it. */
export const ContractSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().min(1),
    version: z.string().min(1).optional(),
    instructions: z.string().optional(),
    program: z.string().min(1).optional().describe('The default program of every tool'),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe('Environment added for every tool; ${VAR} expands'),
    inheritEnv: z
      .union([z.literal(true), z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name'))])
      .optional()
      .describe(
        'Variables of the bridge passed to tools besides the minimal set (PATH, HOME, locale, proxy, CA); true: all',
      ),
    cwd: z.string().optional().describe('Working directory, relative to the contract file'),
    defaults: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'Session defaults: the value of any argument of that name the caller leaves out (--set overrides)',
      ),
    ...limitsShape,
    tools: z.record(
      z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'tool names are 1-128 of A-Z a-z 0-9 _ - .'),
      ToolContractSchema,
    ),
  })
  .describe('An mcpkit bridge contract');

/** A bridge contract as loaded: program, defaults, limits and its tools. */
export type Contract = z.infer<typeof ContractSchema>;
/** One tool of a contract: argv words, arguments, output mode, exit-code policy, limits. */
export type ToolContract = z.infer<typeof ToolContractSchema>;
/** One word of a tool's argv: a literal, an argument placeholder, a switch or an option. */
export type ArgvWord = z.infer<typeof ArgvWordSchema>;
export type ArgumentContract = z.infer<typeof ArgumentSchema>;
/** Where a path argument may point: `{ roots }` or `{ within }`. */
export type PathRule = z.infer<typeof PathRuleSchema>;

/** Milliseconds of a duration. */
export function durationMs(value: string | number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') return value;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value);
  if (!match) return fallback;
  const n = Number(match[1]);
  return Math.round(match[2] === 'ms' ? n : match[2] === 's' ? n * 1000 : n * 60_000);
}

/** Bytes of a size. */
export function sizeBytes(value: string | number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') return value;
  const match = /^(\d+)(KiB|MiB|GiB|B)$/.exec(value);
  if (!match) return fallback;
  const unit = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }[match[2] as 'B'];
  return Number(match[1]) * unit;
}
