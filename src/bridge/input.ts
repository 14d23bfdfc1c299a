import type { Ajv2020 as Ajv2020Type, ValidateFunction } from 'ajv/dist/2020.js';
import type { ToolContract } from './contract.js';

// Loaded on the first call, not at start-up: a bridge must initialize as fast as a bare server.
let ajv: Promise<Ajv2020Type> | undefined;

/** The `inputSchema` a tool is served with: its args as JSON Schema properties, `required` collected. */
export function inputSchemaOf(tool: ToolContract): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, arg] of Object.entries(tool.args ?? {})) {
    // `path` is the bridge's own rule, not JSON Schema: the client sees a string (or array of strings).
    const { required: isRequired, path: _path, ...schema } = arg;
    properties[name] = schema;
    if (isRequired) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/** A validator for a tool's arguments, compiled on first use and then reused. */
export function lazyValidator(schema: Record<string, unknown>): () => Promise<ValidateFunction> {
  let compiled: ValidateFunction | undefined;
  return async () => {
    if (compiled) return compiled;
    ajv ??= import('ajv/dist/2020.js').then((mod) => {
      // Node exposes the CommonJS module's named exports; inside the bundled CLI only `default` exists.
      const { Ajv2020 } = 'Ajv2020' in mod ? mod : (mod as unknown as { default: typeof mod }).default;
      return new Ajv2020({ strict: false, allErrors: true });
    });
    compiled = (await ajv).compile(schema);
    return compiled;
  };
}

/**
 * The arguments a call runs with: what the caller gave, then session defaults, then the schema's
 * defaults; validated. Returns every problem, each naming the argument.
 */
export function resolveArguments(
  tool: ToolContract,
  given: Record<string, unknown> | undefined,
  defaults: Readonly<Record<string, unknown>>,
  validate: ValidateFunction,
): { ok: true; args: Record<string, unknown> } | { ok: false; problems: string[] } {
  // No prototype: a contract argument named `constructor` or `toString` must not find Object.prototype's.
  const args: Record<string, unknown> = Object.assign(Object.create(null), given);
  for (const [name, arg] of Object.entries(tool.args ?? {})) {
    if (args[name] !== undefined) continue;
    if (Object.hasOwn(defaults, name) && defaults[name] !== undefined) args[name] = defaults[name];
    else if (arg.default !== undefined) args[name] = arg.default;
  }
  if (validate(args)) return { ok: true, args };
  const problems = (validate.errors ?? []).map((e) => {
    const where = e.instancePath ? `argument ${e.instancePath.slice(1).replaceAll('/', '.')}` : 'arguments';
    const extra = e.keyword === 'additionalProperties' ? ` "${String(e.params.additionalProperty)}"` : '';
    const missing = e.keyword === 'required' ? ` "${String(e.params.missingProperty)}"` : '';
    return `${where}: ${e.message}${extra}${missing}`;
  });
  return { ok: false, problems };
}
