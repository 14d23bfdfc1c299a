import { describe, expect, it } from 'vitest';
import { chunkFile } from '../../src/search/chunks/chunker.js';
import { outline } from '../../src/search/chunks/outline.js';

const cut = async (path: string, source: string) =>
  (await chunkFile(path, source, { outline: true })).map((c) => [c.startLine, c.endLine, c.symbols]);
const names = async (path: string, source: string) =>
  (await chunkFile(path, source, { outline: true })).flatMap((c) => c.symbols);

/** Filler statements, so a unit passes the 60-line limit and is cut at its members. */
const body = (n: number, indent: string, line: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => indent + line(i));

describe('outline: definitions without a parse', () => {
  it('cuts a long Java class at its methods, doc comments and annotations going with them', async () => {
    const source = [
      'package a;',
      '',
      '/** A pool of connections. */',
      'public final class Pool<T> implements AutoCloseable {',
      '    private final Object lock = new Object();',
      '',
      '    /**',
      '     * Removes idle entries; "}" in a string and a char {',
      '     */',
      '    @Override',
      '    public synchronized <K> List<K> evictIdle(long now) throws IOException {',
      '        String s = "}";',
      "        char c = '{';",
      ...body(30, '        ', (i) => `count += ${i};`),
      '    }',
      '',
      '    Pool(int size) {',
      ...body(30, '        ', (i) => `this.size = size + ${i};`),
      '    }',
      '}',
    ].join('\n');
    // `package a;` is merged into the class's first piece, as tiny neighbours always are.
    expect(await cut('Pool.java', source)).toEqual([
      [1, 5, ['Pool']],
      [7, 44, ['evictIdle']],
      [46, 78, ['Pool']],
    ]);
  });

  it('does not take calls, statements or C prototypes and macro lines for definitions', async () => {
    const source = [
      '#include <linux/export.h>',
      '',
      'static int helper(int x);',
      '',
      'long long notrace __ashldi3(long long u, int b)',
      '{',
      '\tif (b == 0)',
      '\t\treturn u;',
      '\treturn helper(u) << b;',
      '}',
      'EXPORT_SYMBOL(__ashldi3);',
      '',
      'static int',
      'helper(int x)',
      '{',
      '\treturn x;',
      '}',
    ].join('\n');
    expect(await names('ashldi3.c', source)).toEqual(['__ashldi3', 'helper']);
  });

  it('reads code without semicolons, regular expressions holding quotes and braces, and class members', async () => {
    const source = [
      '// eslint-disable-next-line',
      'export abstract class CodeOrName {',
      '  abstract readonly str: string',
      '  abstract toString(): string',
      '}',
      '',
      'export const IDENTIFIER = /^[a-z$_{\'"][a-z$_0-9]*$/i',
      '',
      'export class Name extends CodeOrName {',
      '  constructor(s: string) {',
      '    super()',
      '  }',
      '}',
    ].join('\n');
    expect(await cut('code.ts', source)).toEqual([
      [1, 7, ['CodeOrName', 'toString', 'IDENTIFIER']],
      [9, 13, ['Name', 'constructor']],
    ]);
  });

  it('names enum variants, and Rust functions called `new`', async () => {
    const source = [
      'pub enum Inst {',
      '    Match(usize),',
      '    Save { slot: usize },',
      '    Split,',
      '}',
      '',
      'impl Cache {',
      '    /// An empty cache.',
      "    pub fn new<'a>(prog: &'a Program) -> Self {",
      "        let c = '}';",
      '        Cache { jobs: vec![] }',
      '    }',
      '}',
    ].join('\n');
    expect(await names('inst.rs', source)).toEqual(['Inst', 'Match', 'Save', 'Split', 'Cache', 'new']);
  });

  it('follows indentation in Python and Ruby (a nested function stays in its function)', async () => {
    const python = [
      'class Loader:',
      '    """A loader: def fake(): inside a docstring."""',
      '',
      '    def load(self, name):',
      '        def inner():',
      '            return (1,',
      '    2)',
      '        return inner',
      '',
      'def top():',
      '    pass',
    ].join('\n');
    expect(await names('loader.py', python)).toEqual(['Loader', 'load', 'top']);
    // A call continued at a shallower indentation still belongs to its function; a comment at the margin goes
    // with the definition below it.
    const continued = [
      'def redeem(db, code):',
      '    db.execute(',
      '"INSERT INTO t VALUES (%s)",',
      '    (code,),',
      ')',
      '',
      '# Cancels a redemption.',
      'def cancel(db):',
      '    db.rollback()',
      '    db.close()',
    ].join('\n');
    expect(await cut('coupons.py', continued)).toEqual([
      [1, 5, ['redeem']],
      [7, 10, ['cancel']],
    ]);
    const ruby = [
      'module Thor',
      '  class Actions',
      '    def uncomment_lines(path, flag)',
      "      gsub_file(path, /^(\\s*)#[[:blank:]]*(.*#{flag})/, '\\1')",
      '    end',
      '',
      '    def comment_lines(path)',
      '      path',
      '    end',
      '  end',
      'end',
    ].join('\n');
    expect(await names('actions.rb', ruby)).toEqual(['Thor', 'Actions', 'uncomment_lines', 'comment_lines']);
  });

  it('gives up on a file whose braces do not balance, and the parser cuts it', async () => {
    const source = 'function open() {\n  return "x";\n}\n}\nfunction shut() {}\n';
    expect(outline(source.split('\n'), 'javascript')).toBeUndefined();
    const parsed = await chunkFile('a.js', source);
    expect(await chunkFile('a.js', source, { outline: true })).toEqual(parsed);
  });

  it('has no outline for a language without a grammar (its definition patterns cut it)', () => {
    expect(outline(['fun main() {', '}'], 'kotlin')).toBeUndefined();
  });
});
