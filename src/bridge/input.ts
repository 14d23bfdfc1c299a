import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ToolContract } from './contract.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });

/** The `inputSchema` a tool is served with: its args as JSON Schema properties, `required` collected. */
export function inputSchemaOf(tool: ToolContract): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, arg] of Object.entries(tool.args ?? {})) {
    const { required: isRequired, ...schema } = arg;
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

/** A compiled validator for a tool's arguments. */
export function compileValidator(schema: Record<string, unknown>): ValidateFunction {
  return ajv.compile(schema);
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
  const args: Record<string, unknown> = { ...(given ?? {}) };
  for (const [name, arg] of Object.entries(tool.args ?? {})) {
    if (args[name] !== undefined) continue;
    if (defaults[name] !== undefined) args[name] = defaults[name];
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
