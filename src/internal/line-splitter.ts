/** Longest line a {@link LineSplitter} keeps by default: 16 MiB of text, far above any sane frame. */
export const MAX_LINE_LENGTH = 16 * 1024 * 1024;

/** Options for {@link LineSplitter}. */
export interface LineSplitterOptions {
  /** Longest line kept, in UTF-16 code units; longer ones are skipped up to their newline. */
  maxLineLength?: number;
  /** Called once per skipped line, when it ends (newline or flush). Default: skip silently. */
  onOverflow?: (line: SkippedLine) => void;
}

/** What is known of a line over the cap: enough to answer the frame it carried, not the frame itself. */
export interface SkippedLine {
  /** Its whole length, in UTF-16 code units. */
  length: number;
  /** Its first {@link SKIPPED_EDGE} code units (fewer under a cap below that: what was held when it passed). */
  head: string;
  /** Its last {@link SKIPPED_EDGE} code units (before the newline). */
  tail: string;
}

/** How much of each end of a skipped line is kept. */
export const SKIPPED_EDGE = 256;

/**
 * Splits a text stream into lines (`\n` or `\r\n`), across chunk boundaries, calling `onLine` for each
 * non-blank one. Each chunk is scanned once: a line arriving in many chunks is kept as parts and joined
 * once at its newline (rescanning the pending text per chunk made a 40 MB line take 7.8 s and blocked the
 * event loop). A line over the cap is dropped as it arrives, so one hostile line costs no memory.
 */
export class LineSplitter {
  private parts: string[] = [];
  private pendingLength = 0;
  /** Inside a line over the cap: everything up to the next newline is dropped but its ends. */
  private skipping = false;
  private skipped: SkippedLine = { length: 0, head: '', tail: '' };
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
      if (this.skipping)
        this.endSkipped(chunk.slice(Math.max(start, index - SKIPPED_EDGE), index), index - start);
      else this.complete(chunk.slice(start, index));
      start = index + 1;
    }
    if (start === chunk.length) return;
    if (this.skipping) {
      this.skipMore(
        start === 0 ? chunk : chunk.slice(Math.max(start, chunk.length - SKIPPED_EDGE)),
        chunk.length - start,
      );
      return;
    }
    const rest = start === 0 ? chunk : chunk.slice(start);
    if (this.pendingLength + rest.length > this.maxLineLength) {
      this.startSkipping(rest);
      return;
    }
    this.parts.push(rest);
    this.pendingLength += rest.length;
  }

  /** The text after the last newline (a last line without one), then forgets it. */
  flush(): void {
    if (this.skipping) this.endSkipped('', 0);
    else this.complete('');
  }

  private complete(last: string): void {
    const length = this.pendingLength + last.length;
    if (length > this.maxLineLength) {
      this.startSkipping(last);
      this.endSkipped('', 0);
      return;
    }
    let line = this.parts.length === 0 ? last : this.parts.join('') + last;
    this.parts = [];
    this.pendingLength = 0;
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    if (line.trim() !== '') this.onLine(line);
  }

  /** The pending parts plus `rest` passed the cap: keep the line's head, drop the rest as it comes. */
  private startSkipping(rest: string): void {
    const first = this.parts[0] ?? rest;
    let head = first.slice(0, SKIPPED_EDGE);
    for (let i = 1; head.length < SKIPPED_EDGE && i < this.parts.length; i++)
      head += (this.parts[i] as string).slice(0, SKIPPED_EDGE - head.length);
    if (head.length < SKIPPED_EDGE && this.parts.length > 0)
      head += rest.slice(0, SKIPPED_EDGE - head.length);
    const length = this.pendingLength + rest.length;
    // The tail from as many parts as it takes (the last two were short of it when chunks were small), and
    // one unit more, for a CR before the newline.
    let tail = rest;
    for (let i = this.parts.length - 1; tail.length <= SKIPPED_EDGE && i >= 0; i--)
      tail = this.parts[i] + tail;
    this.parts = [];
    this.pendingLength = 0;
    this.skipping = true;
    this.skipped = { length, head, tail: tail.slice(-SKIPPED_EDGE - 1) };
  }

  private skipMore(text: string, length: number): void {
    this.skipped.length += length;
    // One more than kept, for a CR before the newline.
    this.skipped.tail = (this.skipped.tail + text).slice(-SKIPPED_EDGE - 1);
  }

  private endSkipped(text: string, length: number): void {
    this.skipMore(text, length);
    this.skipping = false;
    let { tail } = this.skipped;
    if (tail.charCodeAt(tail.length - 1) === 13) tail = tail.slice(0, -1);
    this.options.onOverflow?.({ ...this.skipped, tail: tail.slice(-SKIPPED_EDGE) });
    this.skipped = { length: 0, head: '', tail: '' };
  }
}
