import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';

type Block = CallToolResult['content'][number];

/** One content block as terminal text: text as is, everything else as a one-line marker. */
export function renderBlock(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${Buffer.byteLength(block.data, 'base64')} bytes]`;
    case 'resource_link':
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      return 'text' in resource && typeof resource.text === 'string'
        ? resource.text
        : `[resource: ${resource.uri}]`;
    }
    default:
      return `[${(block as { type: string }).type}]`;
  }
}

/** A tool result for the terminal: structured content as JSON when present, else the content blocks. */
export function renderToolResult(result: CallToolResult): string {
  if (result.structuredContent !== undefined) return `${JSON.stringify(result.structuredContent, null, 2)}\n`;
  return result.content.map((block) => `${renderBlock(block)}\n`).join('');
}

/** Resource contents: text as is, blobs as a marker. */
export function renderResource(result: ReadResourceResult): string {
  return result.contents
    .map((c) =>
      'text' in c && typeof c.text === 'string'
        ? `${c.text}\n`
        : `[blob: ${c.uri}, ${c.mimeType ?? 'unknown type'}, ${Buffer.byteLength(String((c as { blob?: string }).blob ?? ''), 'base64')} bytes]\n`,
    )
    .join('');
}

/** Prompt messages as `role: text` lines. */
export function renderPrompt(result: GetPromptResult): string {
  return result.messages.map((m) => `${m.role}: ${renderBlock(m.content as Block)}\n`).join('');
}
