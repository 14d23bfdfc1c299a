import { extname } from 'node:path';

/** A language the chunker knows: its grammar (tree-sitter WASM name) and the node types that are units. */
export interface LanguageSpec {
  name: string;
  /** The grammar file `tree-sitter-<grammar>.wasm` in @repomix/tree-sitter-wasms; none: line windows. */
  grammar?: string;
  /** Node types that make a chunk of their own (functions, classes, methods, …). */
  units?: readonly string[];
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
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
};

/** The language of a file, by extension; anything else is text (line windows). */
export function languageOf(path: string): LanguageSpec {
  return SPECS[BY_EXTENSION[extname(path).toLowerCase()] ?? 'text'] as LanguageSpec;
}
