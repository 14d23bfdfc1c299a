// Experiment (issue 32, third round): document expansion with the translation table, simulated in the blanked copy:
// every WINDOW lines of each code file get a line comment holding the English words whose translations the next
// WINDOW lines' code tokens carry most (t(code | English) summed over the window's distinct tokens).
import { readFileSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { tokenize } from '../src/search/lexical/tokenize.js';

interface Table {
  table: Record<string, [string, number][]>;
}

export function expandTree(dir: string, files: string[], words: number, window = 30): void {
  const { table } = JSON.parse(
    readFileSync(new URL('../models/code-words/translation.json', import.meta.url), 'utf8'),
  ) as Table;
  const inverse = new Map<string, [string, number][]>();
  for (const [english, codes] of Object.entries(table))
    for (const [code, p] of codes) {
      const list = inverse.get(code) ?? [];
      list.push([english, p]);
      inverse.set(code, list);
    }
  // Two passes: each window's English scores, then (IDF=1) each word weighed by log(windows / windows it scores in),
  // so words every window suggests (`value`, `return`) give way to the window's own.
  const windows: { file: string; slice: string[]; scores: Map<string, number> }[] = [];
  const df = new Map<string, number>();
  for (const file of files) {
    const lines = readFileSync(join(dir, file), 'utf8').split('\n');
    for (let at = 0; at < lines.length; at += window) {
      const slice = lines.slice(at, at + window);
      const tokens = new Set(tokenize(slice.join('\n')));
      const scores = new Map<string, number>();
      for (const token of tokens)
        for (const [english, p] of inverse.get(token) ?? [])
          if (!tokens.has(english)) scores.set(english, (scores.get(english) ?? 0) + p);
      for (const english of scores.keys()) df.set(english, (df.get(english) ?? 0) + 1);
      windows.push({ file, slice, scores });
    }
  }
  const idf = (english: string) => (process.env.IDF ? Math.log(windows.length / (df.get(english) ?? 1)) : 1);
  const out = new Map<string, string[]>();
  for (const { file, slice, scores } of windows) {
    const mark = extname(file) === '.rb' ? '#' : '//';
    const best = [...scores.entries()]
      .map(([w, score]) => [w, score * idf(w)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, words)
      .map(([w]) => w);
    const lines = out.get(file) ?? [];
    if (best.length > 0) lines.push(`${mark} ${best.join(' ')}`);
    lines.push(...slice);
    out.set(file, lines);
  }
  for (const [file, lines] of out) writeFileSync(join(dir, file), lines.join('\n'));
}
