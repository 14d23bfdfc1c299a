/** Longest line a {@link LineSplitter} keeps by default: 16 MiB of text, far above any sane frame. */
export const MAX_LINE_LENGTH = 16 * 1024 * 1024;

/** Options for {@link LineSplitter}. */
export interface LineSplitterOptions {
  /** Longest line kept, in UTF-16 code units; longer ones are skipped up to their newline. */
  maxLineLength?: number;
  /** Called once per skipped line with the length seen before giving up. Default: skip silently. */
  onOverflow?: (length: number) => void;
}

/**
 * Splits a text stream into lines (`\n` or `\r\n`), across chunk boundaries, calling `onLine` for each
 * non-blank one. Each chunk is scanned once: a line arriving in many chunks is kept as parts and joined
 * once at its newline (rescanning the pending text per chunk made a 40 MB line take 7.8 s and blocked the
 * event loop). A line over the cap is dropped as it arrives, so one hostile line costs no memory.
 */
export class LineSplitter {
  private parts: string[] = [];
  private pendingLength = 0;
  /** Inside a line over the cap: everything up to the next newline is dropped. */
  private skipping = false;
  private scannedLength = 0;
  private readonly maxLineLength: number;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly options: LineSplitterOptions = {},
  ) {
    this.maxLineLength = options.maxLineLength ?? MAX_LINE_LENGTH;
  }

  /** Code units examined so far: each pushed once (a linear-time guarantee tests can hold us to). */
  get scanned(): number {
    return this.scannedLength;
  }

  push(chunk: string): void {
    this.scannedLength += chunk.length;
    let start = 0;
    for (let index = chunk.indexOf('\n'); index !== -1; index = chunk.indexOf('\n', start)) {
      if (this.skipping) this.skipping = false;
      else this.complete(chunk.slice(start, index));
      start = index + 1;
    }
    if (start === chunk.length || this.skipping) return;
    const rest = start === 0 ? chunk : chunk.slice(start);
    if (this.pendingLength + rest.length > this.maxLineLength) {
      this.overflow(this.pendingLength + rest.length);
      this.skipping = true;
      return;
    }
    this.parts.push(rest);
    this.pendingLength += rest.length;
  }

  /** The text after the last newline (a last line without one), then forgets it. */
  flush(): void {
    if (this.skipping) this.skipping = false;
    else this.complete('');
  }

  private complete(last: string): void {
    const length = this.pendingLength + last.length;
    if (length > this.maxLineLength) {
      this.overflow(length);
      return;
    }
    let line = this.parts.length === 0 ? last : this.parts.join('') + last;
    this.parts = [];
    this.pendingLength = 0;
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    if (line.trim() !== '') this.onLine(line);
  }

  private overflow(length: number): void {
    this.parts = [];
    this.pendingLength = 0;
    this.options.onOverflow?.(length);
  }
}
