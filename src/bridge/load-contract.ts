import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isNode, LineCounter, parseDocument } from 'yaml';
import { McpkitError } from '../errors/index.js';
import {
  type ArgumentContract,
  type Contract,
  ContractSchema,
  OptionWordSchema,
  SwitchWordSchema,
  type ToolContract,
} from './contract.js';

/** A contract read from its file, with where it lives (relative paths resolve against `dir`). */
export interface LoadedContract {
  file: string;
  dir: string;
  contract: Contract;
}

/** One problem, placed in the YAML file. */
export interface ContractProblem {
  line: number;
  column: number;
  path: string;
  message: string;
}

/**
 * Reads and validates a contract. Every problem (YAML syntax, schema, references between argv and args)
 * is reported at once with `file:line:col`; throws CONTRACT_INVALID listing them.
 */
export async function loadContract(file: string): Promise<LoadedContract> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new McpkitError('IO', `cannot read ${path}: ${(cause as Error).message}`, { cause, file: path });
  }
  const { contract, problems } = parseContract(text);
  if (!contract) {
    const lines = problems.map(
      (p) => `${path}:${p.line}:${p.column}: ${p.path ? `${p.path}: ` : ''}${p.message}`,
    );
    throw new McpkitError('CONTRACT_INVALID', `invalid contract:\n${lines.join('\n')}`, { file: path });
  }
  return { file: path, dir: dirname(path), contract };
}

/** Parses contract text; returns the contract, or every problem found. */
export function parseContract(text: string): { contract?: Contract; problems: ContractProblem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const at = (offset: number) => lineCounter.linePos(offset);
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((e) => {
        const pos = at(e.pos[0]);
        return { line: pos.line, column: pos.col, path: '', message: e.message.split('\n')[0] ?? e.message };
      }),
    };
  }
  const locate = (segments: readonly (string | number)[]) => {
    // The deepest node that exists on the path: a missing key is reported where its parent is.
    for (let n = segments.length; n >= 0; n--) {
      const node = doc.getIn(segments.slice(0, n), true);
      if (isNode(node) && node.range) return at(node.range[0]);
    }
    return { line: 1, col: 1 };
  };
  const problem = (segments: readonly (string | number)[], message: string): ContractProblem => {
    const pos = locate(segments);
    return { line: pos.line, column: pos.col, path: formatPath(segments), message };
  };
  const value: unknown = doc.toJS();
  const parsed = ContractSchema.safeParse(value);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.flatMap((issue) => {
        const segments = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
        const precise = argvWordIssues(value, segments, issue.code);
        return precise
          ? precise.map((p) => problem(p.segments, p.message))
          : [problem(segments, issue.message)];
      }),
    };
  }
  const problems: ContractProblem[] = [];
  for (const [name, tool] of Object.entries(parsed.data.tools)) {
    for (const [segments, message] of toolProblems(tool, parsed.data))
      problems.push(problem(['tools', name, ...segments], message));
  }
  return problems.length > 0 ? { problems } : { contract: parsed.data, problems };
}

/**
 * A union's error says only "Invalid input"; for an argv word, say what is wrong with the form it
 * evidently meant ({ switch, if } or { option, value }).
 */
function argvWordIssues(root: unknown, segments: (string | number)[], code: string) {
  if (code !== 'invalid_union' || segments.at(-2) !== 'argv') return undefined;
  let word: unknown = root;
  for (const s of segments) word = (word as Record<string | number, unknown> | undefined)?.[s];
  const schema =
    typeof word === 'object' && word !== null
      ? 'switch' in word
        ? SwitchWordSchema
        : 'option' in word
          ? OptionWordSchema
          : undefined
      : undefined;
  const issues = schema?.safeParse(word).error?.issues;
  if (!issues)
    return [{ segments, message: 'expected a word, "$arg", { switch, if } or { option, value, join? }' }];
  return issues.map((i) => ({ segments: [...segments, ...i.path.map(String)], message: i.message }));
}

/** Problems a schema cannot see: references between argv and args, a program to run, a valid pattern. */
function toolProblems(tool: ToolContract, contract: Contract): [(string | number)[], string][] {
  const problems: [(string | number)[], string][] = [];
  const args = tool.args ?? {};
  const typeOf = (name: string) => args[name]?.type;
  if (tool.module !== undefined) {
    if (tool.argv !== undefined) problems.push([['argv'], 'a module tool runs in-process and has no argv']);
    if (tool.background !== undefined)
      problems.push([['background'], 'a module tool cannot run in the background']);
  } else {
    if (tool.program === undefined && contract.program === undefined) {
      problems.push([[], 'no program: give the tool a program, or the contract a default program']);
    }
    (tool.argv ?? []).forEach((word, i) => {
      const ref = (name: string, key: string | undefined, allowed: string[]) => {
        const type = typeOf(name);
        const where = key === undefined ? ['argv', i] : ['argv', i, key];
        if (type === undefined) problems.push([where, `argument "${name}" is not declared in args`]);
        else if (!allowed.includes(type))
          problems.push([where, `argument "${name}" is ${type}; here it must be ${allowed.join(' or ')}`]);
      };
      if (typeof word === 'string') {
        if (word.startsWith('$') && !word.startsWith('$$'))
          ref(word.slice(1), undefined, ['string', 'integer', 'number', 'array']);
      } else if ('switch' in word) ref(word.if, 'if', ['boolean']);
      else ref(word.value, 'value', ['string', 'integer', 'number', 'boolean', 'array']);
    });
  }
  if (tool.progress !== undefined && tool.progress !== 'lines') {
    try {
      const groups = new RegExp(tool.progress.pattern).source;
      if (!/\(\?<(progress|message)>/.test(groups))
        problems.push([['progress', 'pattern'], 'needs a named group progress or message']);
    } catch (error) {
      problems.push([['progress', 'pattern'], `not a valid regular expression: ${(error as Error).message}`]);
    }
  }
  for (const [name, arg] of Object.entries(args)) {
    if (arg.default !== undefined && arg.required)
      problems.push([['args', name], 'an argument with a default cannot be required']);
    if (arg.path !== undefined) problems.push(...pathProblems(name, arg, args));
  }
  if (tool.module !== undefined && (tool.memory !== undefined || tool.cpu !== undefined))
    problems.push([[], 'a module tool runs in-process: memory and cpu limits do not apply to it']);
  return problems;
}

/** A path rule sits on a string (or array of strings) and `within` names a rooted path argument. */
function pathProblems(
  name: string,
  arg: ArgumentContract,
  args: Record<string, ArgumentContract>,
): [(string | number)[], string][] {
  const problems: [(string | number)[], string][] = [];
  const stringy = arg.type === 'string' || (arg.type === 'array' && arg.items?.type === 'string');
  if (!stringy)
    problems.push([
      ['args', name, 'path'],
      `a path argument is a string or an array of strings, not ${arg.type}`,
    ]);
  if (arg.path !== undefined && 'within' in arg.path) {
    const base = args[arg.path.within]?.path;
    if (base === undefined || !('roots' in base) || arg.path.within === name)
      problems.push([
        ['args', name, 'path', 'within'],
        `"${arg.path.within}" must be another argument of this tool with path: { roots }`,
      ]);
  }
  return problems;
}

function formatPath(segments: readonly (string | number)[]): string {
  return segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}
