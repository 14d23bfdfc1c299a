/** How much of a file decides whether it is text. */
export const SNIFF_BYTES = 8192;
/** Above this share of characters that text does not hold, a file is binary. */
const MAX_NON_TEXT_SHARE = 0.1;

/**
 * Whether content is binary rather than text, judged on its first 8 KiB: a NUL, or more than a tenth of the
 * characters being what text does not hold — control characters other than tab, line and page breaks, backspace
 * and escape, and U+FFFD, which decoding as UTF-8 puts for every byte sequence that is not UTF-8. Random or
 * compressed bytes come out near one half; a source file in Latin-1 with an accent here and there stays far
 * below a tenth, so it is still indexed (a NUL-only test let NUL-free bytes under code extensions through).
 */
export function looksBinary(text: string | Uint8Array): boolean {
  const head =
    typeof text === 'string'
      ? text.slice(0, SNIFF_BYTES)
      : Buffer.from(text.buffer, text.byteOffset, Math.min(text.length, SNIFF_BYTES)).toString('utf8');
  let nonText = 0;
  for (let i = 0; i < head.length; i++) {
    const code = head.charCodeAt(i);
    if (code === 0) return true;
    if ((code < 0x20 && !TEXT_CONTROLS.has(code)) || code === 0x7f || code === 0xfffd) nonText++;
  }
  return nonText > head.length * MAX_NON_TEXT_SHARE;
}

/** Tab, line feed, vertical tab, form feed, carriage return, backspace and escape (colour codes in logs). */
const TEXT_CONTROLS = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x08, 0x1b]);
