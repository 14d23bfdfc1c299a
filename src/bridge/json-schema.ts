import { z } from 'zod';
import { ContractSchema } from './contract.js';

/** The contract as a JSON Schema (draft 2020-12), for editor completion in YAML files. */
export function contractJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ContractSchema, {
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return {
    $id: 'https://mcpkit.dev/schemas/bridge-contract.schema.json',
    title: 'mcpkit bridge contract',
    ...schema,
  };
}
