/** `1 server`, `2 servers`: a count with its noun (plural with an s). */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
