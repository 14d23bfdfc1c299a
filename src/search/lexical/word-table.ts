// Words of a text mapped to values without a string per word: each word is hashed as it is scanned and found in an
// open-addressing table by comparing it in place, so a word met before (most words of code) allocates nothing.
// Counting the terms of every chunk is, after parsing, the largest cost of an index build.
import { isWordAt, widthAt } from './tokenize.js';

/** ASCII letters and digits. */
const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++)
  ASCII_WORD[c] = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ? 1 : 0;

/** The characters of `text` from `start` to `end` as a string of their own (not a view into `text`). */
const copyOf = (text: string, start: number, end: number) =>
  end - start < 13
    ? text.slice(start, end)
    : Buffer.from(text.slice(start, end), 'utf16le').toString('utf16le');

/** Maps each distinct word of the texts it scans to a value made once per word (`make`). */
export class WordTable<T> {
  private slots = new Int32Array(1 << 12).fill(-1);
  private hashes: number[] = [];
  private words: string[] = [];
  private values: T[] = [];

  constructor(
    private readonly make: (word: string) => T,
    /** Words held before the table starts again. */
    private readonly limit = 1 << 16,
  ) {}

  /** Forgets every word (the values they map to are stale). */
  clear(): void {
    this.slots = new Int32Array(1 << 12).fill(-1);
    this.hashes = [];
    this.words = [];
    this.values = [];
  }

  /** Calls `each` with the value of every word of `text` (runs of letters and digits, as tokenize.ts finds them). */
  scan(text: string, each: (value: T) => void): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 128 ? ASCII_WORD[c] === 0 : !isWordAt(text, i)) {
        i += c < 128 ? 1 : widthAt(text, i);
        continue;
      }
      const start = i;
      let hash = 0x811c9dc5;
      while (i < n) {
        const code = text.charCodeAt(i);
        if (code < 128) {
          if (ASCII_WORD[code] === 0) break;
          hash = Math.imul(hash ^ code, 16777619);
          i++;
        } else if (isWordAt(text, i)) {
          const width = widthAt(text, i);
          for (let k = 0; k < width; k++) hash = Math.imul(hash ^ text.charCodeAt(i + k), 16777619);
          i += width;
        } else break;
      }
      each(this.valueOf(text, start, i, hash));
    }
  }

  private valueOf(text: string, start: number, end: number, hash: number): T {
    const mask = this.slots.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = this.slots[slot] as number;
      if (at < 0) break;
      const word = this.words[at] as string;
      if (this.hashes[at] === hash && word.length === length && text.startsWith(word, start))
        return this.values[at] as T;
    }
    if (this.words.length >= this.limit) this.clear();
    // A copy, not a slice: V8's slice of a long string keeps the whole string (a file's text) alive.
    const word = copyOf(text, start, end);
    const value = this.make(word);
    this.words.push(word);
    this.hashes.push(hash);
    this.values.push(value);
    if (this.words.length * 2 > this.slots.length) this.rehash();
    else this.place(this.words.length - 1, hash);
    return value;
  }

  private place(at: number, hash: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while ((this.slots[slot] as number) >= 0) slot = (slot + 1) & mask;
    this.slots[slot] = at;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(-1);
    for (let at = 0; at < this.hashes.length; at++) this.place(at, this.hashes[at] as number);
  }
}
