// How each language's code looks to the line scanners: for the languages the outline scans (outline.ts), how
// comments and strings look and which line patterns open a definition (ctags-style; the name is the first capture
// group that matched); for the languages without a grammar (cut by chunker.ts's definitionCut), the one pattern of a
// definition's first line. Every definition pattern lives here; languages.ts maps extensions and grammars.

/** How a language is scanned for its outline. */
export interface Syntax {
  lineComments: readonly string[];
  blockComments: boolean;
  /** Quote characters that open a string; `'` only for a char literal in Rust (it is also a lifetime). */
  quotes: string;
  /** `/…/` after an operator is a regular expression (JavaScript, Ruby): its quotes and `#` are not code. */
  regexLiterals?: boolean;
  /** Python's and Ruby's blocks are indented, not braced. */
  indented?: boolean;
  /** Definition patterns, tried in order: the name is the first capture group that matched. */
  holders: readonly RegExp[];
  functions: readonly RegExp[];
  /** Every statement at the top level is a unit (JavaScript: `module.exports = …`, `app.get(…)`). */
  topStatements?: boolean;
  /** A definition needs a body (C's prototypes and macro calls are not units). */
  needsBody?: boolean;
  /** C-family signatures `Type name(…)`: found by the shape of the line, not a pattern. */
  signatures?: boolean;
}

const CPP_HOLDERS = [
  /^\s*(?:template\s*<.*>\s*)?(?:class|struct|union)\s+(?:\w+\s+)*?([A-Za-z_]\w*)\s*(?:final\s*)?(?:[:{]|$)/,
  /^\s*(?:inline\s+)?namespace\s+([\w:]+)\s*\{?/,
];
const C_LIKE = { lineComments: ['//'], blockComments: true, quotes: `"'` } as const;
const JAVA_MODIFIERS =
  '(?:@[\\w.]+(?:\\([^)]*\\))?\\s+)*(?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp|synchronized|native|default)\\s+)*';
const CSHARP_MODIFIERS =
  '(?:\\[[^\\]]*\\]\\s*)*(?:(?:public|protected|private|internal|static|sealed|abstract|partial|readonly|unsafe|new|file|ref)\\s+)*';
const JS_HOLDER =
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:class|interface|namespace|module|enum)\s+([A-Za-z_$][\w$.]*)/;
const JS_FUNCTIONS = [
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/,
  /^\s*(?:export\s+)?(?:declare\s+)?(?:type|const|let|var)\s+([A-Za-z_$][\w$]*)/,
  /^\s*(?:(?:public|private|protected|static|readonly|async|get|set|override|abstract|declare|accessor)\s+)*\*?\s*(#?[A-Za-z_$][\w$]*)\s*[?!]?\s*(?:<[^>]*>)?\s*\(/,
  /^\s*(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=/,
  /^\s*[\w$.]*?\.?([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?function\b/,
];
const JAVASCRIPT: Syntax = {
  lineComments: ['//'],
  blockComments: true,
  quotes: '"\'`',
  regexLiterals: true,
  holders: [JS_HOLDER],
  functions: JS_FUNCTIONS,
  topStatements: true,
};

export const SYNTAX: Record<string, Syntax> = {
  java: {
    ...C_LIKE,
    holders: [
      new RegExp(`^\\s*${JAVA_MODIFIERS}(?:class|interface|enum|record|@interface)\\s+([A-Za-z_$][\\w$]*)`),
    ],
    functions: [],
    signatures: true,
  },
  csharp: {
    ...C_LIKE,
    holders: [
      new RegExp(
        `^\\s*${CSHARP_MODIFIERS}(?:class|interface|struct|enum|record(?:\\s+struct|\\s+class)?)\\s+([A-Za-z_]\\w*)`,
      ),
      /^\s*namespace\s+([\w.]+)/,
    ],
    functions: [],
    signatures: true,
  },
  c: {
    ...C_LIKE,
    // `.h` is C's and C++'s: C++ headers' classes and namespaces hold their functions.
    holders: [/^\s*(?:typedef\s+)?enum\s+([A-Za-z_]\w*)\s*\{/, ...CPP_HOLDERS],
    functions: [/^\s*(?:typedef\s+)?(?:struct|union)\s+([A-Za-z_]\w*)\s*\{/],
    signatures: true,
    needsBody: true,
  },
  cpp: {
    ...C_LIKE,
    holders: [...CPP_HOLDERS, /^\s*(?:typedef\s+)?enum\s+(?:class\s+|struct\s+)?([A-Za-z_]\w*)/],
    functions: [],
    signatures: true,
    needsBody: true,
  },
  javascript: JAVASCRIPT,
  typescript: JAVASCRIPT,
  tsx: JAVASCRIPT,
  go: {
    lineComments: ['//'],
    blockComments: true,
    quotes: '"\'`',
    holders: [],
    functions: [/^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/, /^type\s+([A-Za-z_]\w*)/, /^type\s*\(/],
  },
  rust: {
    lineComments: ['//'],
    blockComments: true,
    quotes: '"',
    holders: [
      /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:trait|mod|enum)\s+([A-Za-z_]\w*)/,
      /^\s*(?:unsafe\s+)?impl\b(?:\s*<[^>]*>)?\s+(?:[\w:]+(?:<.*>)?\s+for\s+)?(?:[\w]+::)*([A-Za-z_]\w*)/,
    ],
    functions: [
      /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:default|async|const|unsafe|extern(?:\s+"[^"]*")?)\s+)*fn\s+([A-Za-z_]\w*)/,
      /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|union|type)\s+([A-Za-z_]\w*)/,
      /^\s*macro_rules!\s*([A-Za-z_]\w*)/,
    ],
  },
  php: {
    lineComments: ['//', '#'],
    blockComments: true,
    quotes: `"'`,
    holders: [/^\s*(?:(?:abstract|final|readonly)\s+)*(?:class|interface|trait|enum)\s+([A-Za-z_]\w*)/],
    functions: [
      /^\s*(?:(?:public|private|protected|static|abstract|final)\s+)*function\s+&?\s*([A-Za-z_]\w*)/,
    ],
  },
  swift: {
    lineComments: ['//'],
    blockComments: true,
    quotes: '"',
    holders: [
      /^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|open|final|indirect)\s+)*(?:class|struct|enum|protocol|extension|actor)\s+([A-Za-z_][\w.]*)/,
    ],
    functions: [
      /^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|open|final|override|static|class|mutating|nonmutating|convenience|required|dynamic|nonisolated|optional|package|consuming|borrowing)\s+)*(?:func\s+([A-Za-z_]\w*|[^\s(<]+)|(init)[?!]?\s*[(<]|typealias\s+([A-Za-z_]\w*))/,
    ],
  },
  python: {
    lineComments: ['#'],
    blockComments: false,
    quotes: `"'`,
    indented: true,
    holders: [/^\s*class\s+([A-Za-z_]\w*)/],
    functions: [/^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/],
  },
  ruby: {
    lineComments: ['#'],
    blockComments: false,
    quotes: `"'`,
    regexLiterals: true,
    indented: true,
    holders: [/^\s*(?:class|module)\s+(?:<<\s*)?(?:[\w]+::)*([A-Za-z_]\w*)/],
    functions: [/^\s*def\s+(?:self\.)?([\w?!=[\]<>+\-*/%]+)/],
  },
};

const KOTLIN_MODIFIERS =
  '(?:(?:public|private|protected|internal|open|abstract|sealed|data|inline|value|enum|annotation|override|suspend|operator|infix|tailrec|external|inner|companion|actual|expect|final|fun)\\s+)*';

/**
 * For a language without a grammar: lines that start a definition, the defined name in the first capture group that
 * matched (kept whole: {@link LanguageSpec.definitions}).
 */
export const LINE_DEFINITIONS = {
  kotlin: new RegExp(
    `^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*${KOTLIN_MODIFIERS}(?:class|interface|object|fun|typealias)\\s+(?:<[^>]*>\\s*)?(?:[\\w.]+\\.)?([A-Za-z_]\\w*)`,
  ),
  scala:
    /^\s*(?:(?:private|protected|final|sealed|abstract|implicit|override|lazy|case|inline|opaque|transparent)(?:\[\w+\])?\s+)*(?:class|object|trait|def|type|enum|given)\s+([A-Za-z_][\w]*|`[^`]+`)/,
  lua: /^\s*(?:local\s+)?(?:function\s+([\w.:]+)|([\w.:]+)\s*=\s*function\b)/,
  bash: /^\s*(?:function\s+([\w:.@-]+)\s*(?:\(\s*\))?|([\w:.@-]+)\s*\(\s*\))\s*\{?\s*$/,
  elixir:
    /^\s*(?:defmodule|defprotocol|defimpl|defmacrop?|defp?|defguardp?|defdelegate|defstruct|defexception)\s+([\w.?!]+)/,
  haskell:
    /^(?:(?:data|newtype|type|class|instance)\s+(?:\([^)]*\)\s*=>\s*)?([A-Z][\w']*)|([a-z_][\w']*)\s*::)/,
  zig: /^\s*(?:pub\s+)?(?:(?:inline|export|extern)\s+)?(?:fn\s+([A-Za-z_]\w*)|(?:const|var)\s+([A-Za-z_]\w*)\s*=\s*(?:extern\s+|packed\s+)?(?:struct|enum|union|opaque|error)\b)/,
} as const satisfies Record<string, RegExp>;

/** Lines that go with the definition below them (any language): comments, annotations, attributes, decorators. */
export const ABOVE = /^\s*(\/\/|\/\*|\*|#(?!!)|@|#\[|\[\w)/;

/** Lines that are only a comment (any of the common markers): they go with the definition below them. */
export const COMMENT_LINE = /^\s*(\/\/|\/\*|\*|#(?!!)|--|;|\{-|-\})/;
