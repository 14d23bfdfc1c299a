/** The SSE events of a response body: each event's id and parsed data (a priming event has no data). */
export function sseEvents(text: string): { id?: string; data?: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const id = /^id: (.*)$/mu.exec(block)?.[1];
      const data = /^data: (.+)$/mu.exec(block)?.[1];
      return { ...(id ? { id } : {}), ...(data ? { data: JSON.parse(data) } : {}) };
    });
}
