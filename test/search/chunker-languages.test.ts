import { describe, expect, it } from 'vitest';
import { chunkFile } from '../../src/search/chunks/chunker.js';
import { languageOf } from '../../src/search/chunks/languages.js';

/** One small file per language the chunker knows, and a name each must come out defining. */
const SAMPLES: Array<[path: string, source: string, name: string]> = [
  ['a.ts', 'export function parseConfig(text: string) {\n  return text;\n}\n', 'parseConfig'],
  ['a.tsx', 'export function Button() {\n  return <b>hi</b>;\n}\n', 'Button'],
  ['a.js', 'function loadPlugins(dir) {\n  return dir;\n}\n', 'loadPlugins'],
  ['a.py', 'def read_settings(path):\n    return path\n', 'read_settings'],
  ['a.go', 'package a\n\nfunc OpenStore(path string) error {\n\treturn nil\n}\n', 'OpenStore'],
  ['a.rs', 'pub fn compile_pattern(p: &str) -> bool {\n    true\n}\n', 'compile_pattern'],
  ['A.java', 'class Pool {\n  void evictIdle() {\n    return;\n  }\n}\n', 'evictIdle'],
  ['a.c', 'int crc_update(int crc, int byte)\n{\n\treturn crc ^ byte;\n}\n', 'crc_update'],
  ['a.cpp', 'class Sink {\n public:\n  void flushAll() {}\n};\n', 'Sink'],
  ['a.rb', 'class Shell\n  def ask_user(q)\n    q\n  end\nend\n', 'ask_user'],
  ['a.php', '<?php\nclass Table {\n  public function render() {\n    return 1;\n  }\n}\n', 'render'],
  ['a.cs', 'class Lazy {\n  public int GetValue() {\n    return 1;\n  }\n}\n', 'GetValue'],
  [
    'a.swift',
    'final class EventEmitter {\n  func emit(name: String) {\n    print(name)\n  }\n}\n',
    'EventEmitter',
  ],
  [
    'a.kt',
    'package a\n\nclass ModuleHolder {\n  fun createModule(): Int {\n    return 1\n  }\n}\n',
    'createModule',
  ],
  [
    'a.scala',
    'object Codec {\n  def decodeFrame(b: Array[Byte]): Int = {\n    b.length\n  }\n}\n',
    'decodeFrame',
  ],
  ['a.lua', 'local M = {}\n\nfunction M.split_path(p)\n  return p\nend\n\nreturn M\n', 'split_path'],
  ['a.sh', '#!/bin/sh\n\n_complete_hosts() {\n  echo hosts\n}\n', '_complete_hosts'],
  ['a.ex', 'defmodule Router do\n  def match_route(conn) do\n    conn\n  end\nend\n', 'match_route'],
  ['a.hs', 'module A where\n\nparseHeader :: String -> Int\nparseHeader s = length s\n', 'parseHeader'],
  [
    'a.zig',
    'const std = @import("std");\n\npub fn allocSlice(n: usize) usize {\n    return n;\n}\n',
    'allocSlice',
  ],
];

describe('chunkFile: named definitions in every language', () => {
  it.each(SAMPLES)('%s defines its function or class', async (path, source, name) => {
    const chunks = await chunkFile(path, source);
    expect(chunks.flatMap((c) => c.symbols)).toContain(name);
  });

  it('puts a definition and the comments right above it in one chunk (no grammar: Kotlin)', async () => {
    const source = [
      'package a',
      '',
      ...Array.from({ length: 8 }, (_, i) => `val setting${i} = ${i}`),
      '/**',
      ' * Removes the entry from the cache.',
      ' */',
      'fun evict(key: String) {',
      '  cache.remove(key)',
      '  log("evicted")',
      '  count--',
      '}',
    ].join('\n');
    const chunks = await chunkFile('Cache.kt', source);
    const evict = chunks.find((c) => c.symbols.includes('evict'));
    expect(evict?.content.startsWith('/**')).toBe(true);
    expect(evict?.language).toBe('kotlin');
  });

  it('cuts a C++ header named .h with the C++ grammar: its methods are named, its namespace is no function', async () => {
    const source = [
      '#pragma once',
      'namespace spdlog {',
      'class SPDLOG_API logger {',
      'public:',
      '    void set_level(level::level_enum log_level) { level_.store(log_level); }',
      '    bool should_flush(const details::log_msg &msg) const',
      '    {',
      '        return msg.level >= flush_level_;',
      '    }',
      '};',
      '} // namespace spdlog',
    ].join('\n');
    const chunks = await chunkFile('logger.h', source);
    const symbols = chunks.flatMap((c) => c.symbols);
    expect(symbols).toContain('should_flush');
    expect(chunks.every((c) => c.language === 'cpp')).toBe(true);
    // A plain C header stays C.
    expect(languageOf('list.h', 'struct list_head {\n\tstruct list_head *next;\n};\n').name).toBe('c');
    expect(languageOf('list.h').name).toBe('c');
  });

  it('names no function after a C-grammar misparse of `namespace x { … }`', async () => {
    // The C grammar reads this as a function definition of type `namespace` named `details`.
    const chunks = await chunkFile('a.c', 'namespace details {\nint x = 1;\n}\n');
    expect(chunks.flatMap((c) => c.symbols)).not.toContain('details');
  });
});
