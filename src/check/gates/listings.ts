import { type GateContext, result } from '../context.js';
import type { GateResult } from '../report.js';
import { listAll } from './tools.js';

/** Declared resources list, the first one reads back, templates list. */
export async function resourcesGate(ctx: GateContext): Promise<GateResult> {
  return ctx.withSession(async (probe, init) => {
    if (!(init.result?.capabilities as Record<string, unknown> | undefined)?.resources) {
      return result('resources', 'SKIP', 'the server declares no resources capability');
    }
    const { items, error } = await listAll(probe, 'resources/list', 'resources', ctx.timeoutMs);
    if (error) return result('resources', 'FAIL', 'resources/list failed', { error });
    const templates = await listAll(probe, 'resources/templates/list', 'resourceTemplates', ctx.timeoutMs);
    const evidence: Record<string, unknown> = {
      resources: items.length,
      templates: templates.error ?? templates.items.length,
    };
    const first = items[0];
    if (first) {
      const read = await probe.request('resources/read', { uri: first.uri }, ctx.timeoutMs);
      const contents = read?.result?.contents;
      evidence.read = {
        uri: first.uri,
        contents: Array.isArray(contents) ? contents.length : (read?.error ?? 'no answer'),
      };
      if (!Array.isArray(contents) || contents.length === 0) {
        return result(
          'resources',
          'FAIL',
          `resources/read of ${String(first.uri)} returned no contents`,
          evidence,
        );
      }
    }
    return result(
      'resources',
      'PASS',
      `${items.length} resources${first ? ', first one read back' : ''}; ${String(evidence.templates)} templates`,
      evidence,
    );
  });
}

/** Declared prompts list; the first renders with its required arguments filled. */
export async function promptsGate(ctx: GateContext): Promise<GateResult> {
  return ctx.withSession(async (probe, init) => {
    if (!(init.result?.capabilities as Record<string, unknown> | undefined)?.prompts) {
      return result('prompts', 'SKIP', 'the server declares no prompts capability');
    }
    const { items, error } = await listAll(probe, 'prompts/list', 'prompts', ctx.timeoutMs);
    if (error) return result('prompts', 'FAIL', 'prompts/list failed', { error });
    const first = items[0];
    const evidence: Record<string, unknown> = { prompts: items.length };
    if (first) {
      const args = Object.fromEntries(
        ((first.arguments ?? []) as { name: string; required?: boolean }[])
          .filter((a) => a.required)
          .map((a) => [a.name, 'test']),
      );
      const got = await probe.request('prompts/get', { name: first.name, arguments: args }, ctx.timeoutMs);
      const messages = got?.result?.messages;
      evidence.get = {
        name: first.name,
        arguments: args,
        messages: Array.isArray(messages) ? messages.length : (got?.error ?? 'no answer'),
      };
      if (!Array.isArray(messages))
        return result('prompts', 'FAIL', `prompts/get of ${String(first.name)} failed`, evidence);
    }
    return result(
      'prompts',
      'PASS',
      `${items.length} prompts${first ? ', first one rendered' : ''}`,
      evidence,
    );
  });
}
