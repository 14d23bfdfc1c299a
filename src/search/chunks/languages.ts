import { extname } from 'node:path';
import { LINE_DEFINITIONS } from './language-syntax.js';

/** A language the chunker knows: its grammar (tree-sitter WASM name) and the node types that are units. */
export interface LanguageSpec {
  name: string;
  /** The grammar `tree-sitter-<grammar>.wasm` (shipped gzipped in assets/grammars/, internal/grammar-file.ts); none: line windows. */
  grammar?: string;
  /** Node types that make a chunk of their own (functions, classes, methods, …). */
  units?: readonly string[];
  /**
   * For a language without a grammar: lines that start a definition, the defined name in the first capture
   * group that matched. A chunk starts at each (with the comments right above it) and is named after it.
   */
  definitions?: RegExp;
}

const JS_UNITS = [
  'function_declaration',
  'generator_function_declaration',
  'class_declaration',
  'method_definition',
  'lexical_declaration',
  'export_statement',
  'interface_declaration',
  'type_alias_declaration',
  'enum_declaration',
  'abstract_class_declaration',
  'module',
  // `res.sendFile = function sendFile() {…}` and `module.exports = …`: how older JavaScript defines things.
  'expression_statement',
];

const SPECS: Record<string, LanguageSpec> = {
  typescript: { name: 'typescript', grammar: 'typescript', units: JS_UNITS },
  tsx: { name: 'tsx', grammar: 'tsx', units: JS_UNITS },
  javascript: { name: 'javascript', grammar: 'javascript', units: JS_UNITS },
  python: {
    name: 'python',
    grammar: 'python',
    units: ['function_definition', 'class_definition', 'decorated_definition'],
  },
  go: {
    name: 'go',
    grammar: 'go',
    units: ['function_declaration', 'method_declaration', 'type_declaration'],
  },
  rust: {
    name: 'rust',
    grammar: 'rust',
    units: [
      'function_item',
      'impl_item',
      'struct_item',
      'enum_item',
      'trait_item',
      'mod_item',
      'macro_definition',
    ],
  },
  java: {
    name: 'java',
    grammar: 'java',
    units: [
      'class_declaration',
      'interface_declaration',
      'enum_declaration',
      'method_declaration',
      'constructor_declaration',
      'record_declaration',
    ],
  },
  c: { name: 'c', grammar: 'c', units: ['function_definition', 'struct_specifier', 'enum_specifier'] },
  cpp: {
    name: 'cpp',
    grammar: 'cpp',
    units: [
      'function_definition',
      'class_specifier',
      'struct_specifier',
      'namespace_definition',
      'template_declaration',
    ],
  },
  ruby: { name: 'ruby', grammar: 'ruby', units: ['method', 'singleton_method', 'class', 'module'] },
  php: {
    name: 'php',
    grammar: 'php',
    units: [
      'function_definition',
      'method_declaration',
      'class_declaration',
      'interface_declaration',
      'trait_declaration',
    ],
  },
  csharp: {
    name: 'csharp',
    grammar: 'c_sharp',
    units: [
      'class_declaration',
      'interface_declaration',
      'struct_declaration',
      'method_declaration',
      'constructor_declaration',
      'enum_declaration',
      'record_declaration',
    ],
  },
  swift: {
    name: 'swift',
    grammar: 'swift',
    units: [
      'class_declaration',
      'protocol_declaration',
      'function_declaration',
      'init_declaration',
      'typealias_declaration',
    ],
  },
  kotlin: { name: 'kotlin', definitions: LINE_DEFINITIONS.kotlin },
  scala: { name: 'scala', definitions: LINE_DEFINITIONS.scala },
  lua: { name: 'lua', definitions: LINE_DEFINITIONS.lua },
  bash: { name: 'bash', definitions: LINE_DEFINITIONS.bash },
  elixir: { name: 'elixir', definitions: LINE_DEFINITIONS.elixir },
  haskell: { name: 'haskell', definitions: LINE_DEFINITIONS.haskell },
  zig: { name: 'zig', definitions: LINE_DEFINITIONS.zig },
  markdown: { name: 'markdown' },
  text: { name: 'text' },
};

const BY_EXTENSION: Record<string, string> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.rb': 'ruby',
  '.php': 'php',
  '.cs': 'csharp',
  '.swift': 'swift',
  '.kt': 'kotlin',
  '.kts': 'kotlin',
  '.scala': 'scala',
  '.sc': 'scala',
  '.lua': 'lua',
  '.sh': 'bash',
  '.bash': 'bash',
  '.zsh': 'bash',
  '.ex': 'elixir',
  '.exs': 'elixir',
  '.hs': 'haskell',
  '.zig': 'zig',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
};

/**
 * What only C++ says at the start of a line: a namespace, a class with a body or base, a struct with a base, a
 * template, an access label. C has none of these, so a `.h` that does is a C++ header (spdlog, fmt and Boost ship `.h` files).
 * Within a line (the brace may open the next): `\s*` at every line start would make blank lines cost n² (80,000
 * of them took 16 s).
 */
const CPP_HEADER =
  /^[ \t]*(?:namespace[ \t]+[\w:]+[ \t]*\r?\n?[ \t]*\{|class[ \t]+(?:\w+[ \t]+){0,3}\w+[ \t]*(?:final[ \t]*)?\r?\n?[ \t]*[:{]|struct[ \t]+(?:\w+[ \t]+){0,3}\w+[ \t]*(?:final[ \t]*)?\r?\n?[ \t]*:[^:]|template[ \t]*<|(?:public|private|protected)[ \t]*:)/m;

/**
 * The language of a file, by extension; anything else is text (line windows). A `.h` is C unless its text
 * (when given) is C++: the C grammar cuts C++ into fragments and names a namespace as if it were a function.
 */
export function languageOf(path: string, text?: string): LanguageSpec {
  const language = BY_EXTENSION[extname(path).toLowerCase()] ?? 'text';
  if (language === 'c' && text !== undefined && path.endsWith('.h') && CPP_HEADER.test(text))
    return SPECS.cpp as LanguageSpec;
  return SPECS[language] as LanguageSpec;
}
