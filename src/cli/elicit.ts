import { createInterface } from 'node:readline/promises';
import type { ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/client';
import type { CliIO } from './io.js';

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
}

/**
 * Answers a server's elicitation: on a terminal, asks for each field (Enter keeps the default);
 * otherwise accepts with the schema's defaults applied, so scripted runs never block.
 */
export function createElicitationHandler(io: CliIO) {
  return async (params: ElicitRequestParams): Promise<ElicitResult> => {
    if (!('requestedSchema' in params)) return { action: 'decline' };
    const properties = (params.requestedSchema.properties ?? {}) as Record<string, FieldSchema>;
    const content: Record<string, string | number | boolean> = {};
    for (const [key, field] of Object.entries(properties)) {
      if (field.default !== undefined) content[key] = field.default as string | number | boolean;
    }
    if (!io.stdin.isTTY || !io.stderrIsTTY) return { action: 'accept', content };
    io.err(`${params.message}\n`);
    const rl = createInterface({ input: io.stdin, output: process.stderr });
    try {
      for (const [key, field] of Object.entries(properties)) {
        const label = field.title ?? key;
        const choices = field.enum ? ` (${field.enum.join('/')})` : '';
        const fallback = field.default !== undefined ? ` [${String(field.default)}]` : '';
        const answer = (await rl.question(`${label}${choices}${fallback}: `)).trim();
        if (answer === '') continue;
        content[key] = coerce(answer, field.type);
      }
    } finally {
      rl.close();
    }
    return { action: 'accept', content };
  };
}

function coerce(answer: string, type: string | undefined): string | number | boolean {
  if (type === 'number' || type === 'integer') {
    const n = Number(answer);
    return Number.isNaN(n) ? answer : n;
  }
  if (type === 'boolean') return /^(y|yes|true|1)$/i.test(answer);
  return answer;
}
