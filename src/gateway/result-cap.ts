import type { CallToolResult } from '@modelcontextprotocol/server';
import { RESULTS_URI, type ResultStore } from './result-store.js';

/**
 * Characters per token of the estimate: the usual rule of thumb for English and code with OpenAI's and
 * Anthropic's tokenizers (JSON and code run a little over, prose under). A real tokenizer would be exact for
 * one model only, and the cap is a guard against results a host refuses (Claude Code stops at 25,000 tokens),
 * not a budget.
 */
export const CHARS_PER_TOKEN = 4;

/** Tokens a text is estimated to take: characters / {@link CHARS_PER_TOKEN}, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Room left on the first page for the note that follows it. */
const NOTE_CHARS = 480;

const number = (n: number) => n.toLocaleString('en-US');

/**
 * A tool result whose text is over `maxTokens` (estimated), cut at a line boundary with a note saying how
 * much was left out and where the rest is: the whole text is kept in `store` and readable, whole or in
 * pages of the same size, as `mcpkit://results/<id>[/<page>]`. Text blocks are cut as one text (joined by
 * newlines): the first page takes the first text block's place, the note the next; other blocks and `structuredContent` pass unchanged (a client
 * checks the latter against the tool's output schema). A result within the cap, or `maxTokens` 0, is returned
 * as it is.
 */
export function capResult(result: CallToolResult, maxTokens: number, store: ResultStore): CallToolResult {
  if (!(maxTokens > 0) || !Array.isArray(result.content)) return result;
  const limit = maxTokens * CHARS_PER_TOKEN;
  let total = 0;
  for (const block of result.content) if (block.type === 'text') total += block.text.length;
  if (total <= limit) return result;
  const full = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  const ends = pageEnds(full, Math.max(limit - NOTE_CHARS, Math.ceil(limit / 2)));
  const shown = full.slice(0, ends[0]);
  const left = full.length - shown.length;
  const id = store.put(full, ends);
  const cut =
    `[mcpkit gateway: the result was cut here, at a line boundary under the ${number(maxTokens)}-token cap: ` +
    `${number(left)} of ${number(full.length)} characters (about ${number(estimateTokens(full.slice(shown.length)))} tokens) left out.`;
  const rest =
    id === undefined
      ? ' The whole result is too large to keep; ask the tool for less (a narrower query, a range).]'
      : ` Read the rest with resources/read: ${RESULTS_URI}${id}/2${ends.length > 2 ? ` to ${RESULTS_URI}${id}/${ends.length}` : ''} ` +
        `(pages of the same size), or the whole at ${RESULTS_URI}${id}; kept ${Math.round(store.ttlMs / 60_000)} min.]`;
  let placed = false;
  const content: CallToolResult['content'] = [];
  for (const block of result.content) {
    if (block.type !== 'text') content.push(block);
    else if (!placed) {
      content.push({ type: 'text', text: shown }, { type: 'text', text: `${cut}${rest}` });
      placed = true;
    }
  }
  return { ...result, content };
}

/**
 * Where each page of `text` ends (exclusive) for pages of at most `size` characters, each ending after a
 * newline when there is one in its second half (else mid-line, never inside a surrogate pair).
 */
export function pageEnds(text: string, size: number): number[] {
  const ends: number[] = [];
  let start = 0;
  while (text.length - start > size) {
    let end = text.lastIndexOf('\n', start + size - 1) + 1;
    if (end <= start + size / 2) {
      end = start + size;
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    }
    ends.push(end);
    start = end;
  }
  ends.push(text.length);
  return ends;
}
