import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type GateContext, result } from '../context.js';
import type { JsonRpcMessage, Probe } from '../probe.js';
import type { GateResult } from '../report.js';

// Tool names per the 2025-11-25 spec: 1-128 of A-Z a-z 0-9 _ - .
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const draft2020 = new Ajv2020({ strict: false, validateFormats: false });
const draft07 = new Ajv({ strict: false, validateFormats: false });

/** Problems with a tool schema: not an object schema, or not valid JSON Schema for its dialect. */
export function schemaProblems(schema: unknown, where: string): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return [`${where} is not an object`];
  const record = schema as Record<string, unknown>;
  const problems: string[] = [];
  if (record.type !== 'object')
    problems.push(`${where}.type is ${JSON.stringify(record.type)}, expected "object"`);
  const dialect = typeof record.$schema === 'string' ? record.$schema : '';
  const ajv = /draft-0[467]/.test(dialect) ? draft07 : draft2020;
  let valid: boolean;
  try {
    valid = ajv.validateSchema(record) as boolean;
  } catch (error) {
    return [...problems, `${where}: ${(error as Error).message}`];
  }
  if (!valid) {
    const first = ajv.errors?.[0];
    problems.push(
      `${where} is not valid JSON Schema: ${first?.instancePath || '(root)'} ${first?.message ?? ''}`.trim(),
    );
  }
  return problems;
}

/** Lists every page of `method`, following `nextCursor`. */
export async function listAll(
  probe: Probe,
  method: string,
  key: string,
  timeoutMs: number,
): Promise<{ items: Record<string, unknown>[]; error?: JsonRpcMessage['error'] | 'no answer' }> {
  const items: Record<string, unknown>[] = [];
  let cursor: unknown;
  for (let page = 0; page < 1000; page++) {
    const answer = await probe.request(method, cursor === undefined ? {} : { cursor }, timeoutMs);
    if (!answer) return { items, error: 'no answer' };
    if (answer.error) return { items, error: answer.error };
    items.push(...((answer.result?.[key] ?? []) as Record<string, unknown>[]));
    cursor = answer.result?.nextCursor;
    if (cursor === undefined || cursor === null) break;
  }
  return { items };
}

/**
 * Every tool: input (and output) schema a valid JSON Schema with `type: "object"`, names unique and
 * within the spec's characters, a description, and annotations that do not contradict each other.
 */
export async function toolsGate(ctx: GateContext): Promise<GateResult> {
  return ctx.withSession(async (probe, init) => {
    if (!init.result?.capabilities || !(init.result.capabilities as Record<string, unknown>).tools) {
      return result('tools', 'SKIP', 'the server declares no tools capability');
    }
    const { items: tools, error } = await listAll(probe, 'tools/list', 'tools', ctx.timeoutMs);
    if (error) return result('tools', 'FAIL', 'tools/list failed', { error });
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const tool of tools) {
      const name = typeof tool.name === 'string' ? tool.name : JSON.stringify(tool.name);
      const where = `tool "${name}"`;
      if (!TOOL_NAME.test(name)) problems.push(`${where}: name must be 1-128 of A-Z a-z 0-9 _ - .`);
      if (seen.has(name)) problems.push(`${where}: name is not unique`);
      seen.add(name);
      problems.push(...schemaProblems(tool.inputSchema, `${where} inputSchema`));
      if (tool.outputSchema !== undefined)
        problems.push(...schemaProblems(tool.outputSchema, `${where} outputSchema`));
      if (typeof tool.description !== 'string' || tool.description.trim() === '')
        problems.push(`${where}: no description`);
      const annotations = (tool.annotations ?? {}) as Record<string, unknown>;
      if (annotations.readOnlyHint === true && annotations.destructiveHint === true) {
        problems.push(`${where}: annotations say both readOnlyHint and destructiveHint`);
      }
    }
    if (problems.length > 0) {
      return result(
        'tools',
        'FAIL',
        `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${tools.length} tool${tools.length === 1 ? '' : 's'}`,
        {
          problems,
        },
      );
    }
    return result(
      'tools',
      'PASS',
      `${tools.length} tools, schemas valid, names unique, descriptions present`,
      {
        tools: tools.length,
      },
    );
  });
}
