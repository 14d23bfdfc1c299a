/**
 * Splits a text stream into lines (`\n` or `\r\n`), across chunk boundaries, calling `onLine` for each
 * non-blank one. One scan per chunk: a chunk of thousands of frames is not copied once per line.
 */
export class LineSplitter {
  private pending = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: string): void {
    const text = this.pending === '' ? chunk : this.pending + chunk;
    let start = 0;
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', start)) {
      const end = index > start && text.charCodeAt(index - 1) === 13 ? index - 1 : index;
      const line = text.slice(start, end);
      start = index + 1;
      if (line.trim() !== '') this.onLine(line);
    }
    this.pending = start === 0 ? text : text.slice(start);
  }

  /** The text after the last newline (a last line without one), then forgets it. */
  flush(): void {
    const rest = this.pending;
    this.pending = '';
    if (rest.trim() !== '') this.onLine(rest);
  }
}
