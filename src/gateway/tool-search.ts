import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { count } from '../internal/plural.js';
// The BM25 core only: the gateway must not load the code-search stack to start.
import { Bm25Index, topK } from '../search/lexical/bm25.js';
import { synonymsOf } from '../search/lexical/synonyms.js';
import { tokenize } from '../search/lexical/tokenize.js';
import { textResult } from '../serve/tool-result.js';
import type { ExposedTool } from './catalog.js';

/** The tool a client searches the gateway's tools with, in deferred mode. */
export const TOOL_SEARCH = 'tool_search';
/** The tool that calls any gateway tool by name, listed or not, in deferred mode. */
export const CALL_TOOL = 'call_tool';

export const TOOL_SEARCH_DEFINITION: Tool = {
  name: TOOL_SEARCH,
  title: 'Find tools',
  description:
    'Search the tools of every MCP server behind this gateway by what you want to do (for example ' +
    '"create a GitHub issue" or "read a file"). Returns the best matches with their names, descriptions ' +
    'and input schemas; call one with call_tool, or by its name once your client has refreshed its tool list.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What the tool should do, in a few words' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 50,
        default: 5,
        description: 'How many tools to return',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

export const CALL_TOOL_DEFINITION: Tool = {
  name: CALL_TOOL,
  title: 'Call a tool',
  description:
    'Call any tool behind this gateway by the name tool_search returned, with arguments matching its input schema.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The tool name, as tool_search returned it' },
      arguments: { type: 'object', description: 'The tool’s arguments', additionalProperties: true },
    },
    required: ['name'],
    additionalProperties: false,
  },
};

/** What a search returns for each tool. */
export interface ToolMatch {
  name: string;
  server: string;
  description?: string;
  inputSchema: Tool['inputSchema'];
  score: number;
}

/** The text a tool is found by: its name and title weigh most, then its description and parameters. */
function documentOf(tool: ExposedTool) {
  const { definition } = tool;
  const parameters: string[] = [];
  const properties = (definition.inputSchema.properties ?? {}) as Record<string, { description?: unknown }>;
  for (const [key, schema] of Object.entries(properties)) {
    parameters.push(key);
    if (typeof schema?.description === 'string') parameters.push(schema.description);
  }
  return {
    fields: [
      { text: `${tool.tool} ${definition.title ?? ''}`, weight: 3 },
      { text: tool.server, weight: 1 },
      { text: definition.description ?? '', weight: 1 },
      { text: parameters.join(' '), weight: 0.5 },
    ],
  };
}

/** How much a synonym of a query word counts (measured on bench/gateway.ts: see the README). */
const SYNONYM_WEIGHT = 0.5;

/** BM25 over every tool of the catalog (built once per catalog, queried in microseconds). */
export class ToolSearch {
  private readonly index: Bm25Index;

  constructor(
    private readonly tools: readonly ExposedTool[],
    private readonly options: { synonyms?: boolean } = {},
  ) {
    this.index = new Bm25Index(tools.map(documentOf));
  }

  search(query: string, limit = 5): ToolMatch[] {
    // The query's words count fully; their synonyms at SYNONYM_WEIGHT, never more than the word itself.
    const terms = new Map<string, number>();
    for (const term of tokenize(query)) terms.set(term, 1);
    if (this.options.synonyms !== false)
      for (const term of [...terms.keys()])
        for (const synonym of synonymsOf(term)) if (!terms.has(synonym)) terms.set(synonym, SYNONYM_WEIGHT);
    return topK(this.index.scoreTerms(terms), limit).map(({ doc, score }) => {
      const tool = this.tools[doc] as ExposedTool;
      return {
        name: tool.name,
        server: tool.server,
        ...(tool.definition.description !== undefined ? { description: tool.definition.description } : {}),
        inputSchema: tool.definition.inputSchema,
        score: Math.round(score * 1000) / 1000,
      };
    });
  }
}

/** The tool_search result: readable text for the model, the same as structured content. */
export function toolSearchResult(query: string, matches: ToolMatch[], total: number): CallToolResult {
  if (matches.length === 0) {
    return {
      ...textResult(
        `No tool matched "${query}" among ${total} tools. Try other words (what the tool acts on, or the action).`,
      ),
      structuredContent: { tools: [] },
    };
  }
  const blocks = matches.map(
    (m, i) =>
      `${i + 1}. ${m.name} (server ${m.server})\n${m.description ?? '(no description)'}\n` +
      `input schema: ${JSON.stringify(m.inputSchema)}`,
  );
  return {
    ...textResult(`${matches.length} of ${total} tools for "${query}":\n\n${blocks.join('\n\n')}`),
    structuredContent: { tools: matches },
  };
}

/** A Markdown index of every tool, by server (for `--tool-index FILE`: a file the model can read). */
export function toolIndexMarkdown(tools: readonly ExposedTool[]): string {
  const byServer = new Map<string, ExposedTool[]>();
  for (const tool of tools) {
    const list = byServer.get(tool.server) ?? [];
    list.push(tool);
    byServer.set(tool.server, list);
  }
  const lines = [
    '# Tools behind mcpkit gateway',
    '',
    `${count(tools.length, 'tool')} from ${count(byServer.size, 'server')}. Call one by name, or through \`${CALL_TOOL}\`; ` +
      `\`${TOOL_SEARCH}\` finds them by what they do.`,
  ];
  for (const [server, list] of byServer) {
    lines.push('', `## ${server}`, '');
    for (const tool of list) {
      const params = Object.keys(tool.definition.inputSchema.properties ?? {});
      const summary = (tool.definition.description ?? '').split('\n')[0]?.trim() ?? '';
      lines.push(
        `- \`${tool.name}\`${params.length ? `(${params.join(', ')})` : '()'}${summary ? ` — ${summary}` : ''}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
