import { McpkitError } from '../errors/index.js';

/**
 * What an entry asks of the user before it can run: the registry's arguments, environment variables,
 * headers and URL variables, and a bundle's `user_config`, in one shape the CLI prompts for.
 */
export interface InputSpec {
  /** What `--set KEY=VALUE` names: a variable's or header's name, an argument's hint, a `user_config` key. */
  key: string;
  /** How it is shown: "environment variable GITHUB_TOKEN", "header X-Api-Key", "argument root". */
  label: string;
  description?: string;
  required: boolean;
  secret: boolean;
  default?: string;
  choices?: string[];
  /** string, number, boolean, filepath, directory, file. */
  format?: string;
  /** The environment variable a secret is read from when it is written as a reference (`${VAR}`). */
  variable: string;
}

/** Asks the user for one input; undefined keeps the default (or leaves an optional one out). */
export type AskInput = (input: InputSpec) => Promise<string | undefined>;

/** Options for {@link resolveInputs}. */
export interface ResolveInputsOptions {
  /** Values given up front (`--set KEY=VALUE`), by {@link InputSpec.key}. */
  given: Readonly<Record<string, string>>;
  /** Values decided before (`mcpkit update`): used where nothing is given, never checked against the keys. */
  previous?: Readonly<Record<string, string>>;
  /** Asks on a terminal; without it nothing is asked (scripts: `--set`). */
  ask?: AskInput;
  /**
   * Secrets become `${VAR}` references instead of values (a project file is shared: no secret goes in
   * it). False for the user's own config file.
   */
  secretsAsReferences: boolean;
  /** What the entry is, for messages: `io.github.owner/server`. */
  subject: string;
}

/** What {@link resolveInputs} decided: each key's value (absent: left out) and notes for the user. */
export interface ResolvedInputs {
  values: Map<string, string>;
  /** Non-secret values, kept in the entry's `source` so `mcpkit update` can ask nothing again. */
  remembered: Record<string, string>;
  notes: string[];
}

/** Turns any text into an environment variable name: `X-Api-Key` → `X_API_KEY`. */
export function variableName(text: string): string {
  const name = text
    .replace(/^-+/, '')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return /^[0-9]/.test(name) || name === '' ? `V_${name}` : name;
}

/**
 * Decides every input's value: `--set`, then (on a terminal) the user's answer, then the default; a secret
 * in a shared file becomes `${VAR}`. A required input still without a value throws one line naming every
 * one of them and the `--set` that gives it. An unknown `--set` key throws too (a typo must not pass).
 */
export async function resolveInputs(
  specs: readonly InputSpec[],
  options: ResolveInputsOptions,
): Promise<ResolvedInputs> {
  const known = new Set(specs.map((s) => s.key));
  const unknown = Object.keys(options.given).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    const keys = specs.map((s) => s.key).join(', ') || 'none';
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `--set ${unknown.join(', ')}: ${options.subject} has no such input (its inputs: ${keys}); nothing written`,
    );
  }
  const values = new Map<string, string>();
  const remembered: Record<string, string> = {};
  const notes: string[] = [];
  const missing: InputSpec[] = [];
  for (const spec of specs) {
    if (spec.secret && options.secretsAsReferences) {
      values.set(spec.key, `\${${spec.variable}}`);
      const given = spec.key in options.given ? ' (the --set value is not written)' : '';
      notes.push(
        `${spec.label} is a secret: the entry reads it from \${${spec.variable}}; set ${spec.variable} in the environment mcpkit runs in${given}`,
      );
      continue;
    }
    let value = options.given[spec.key] ?? options.previous?.[spec.key];
    if (value === undefined && options.ask && (spec.required || spec.secret)) value = await options.ask(spec);
    if (value === undefined || value === '') value = spec.default;
    if (value === undefined) {
      if (spec.required) missing.push(spec);
      continue;
    }
    if (spec.choices && spec.choices.length > 0 && !spec.choices.includes(value)) {
      throw new McpkitError(
        'INVALID_ARGUMENT',
        `${spec.label} of ${options.subject} must be one of ${spec.choices.join(', ')}, got "${value}"; nothing written`,
      );
    }
    values.set(spec.key, value);
    if (!spec.secret) remembered[spec.key] = value;
  }
  if (missing.length > 0) {
    const sets = missing.map(
      (s) => `--set ${s.key}=<${s.description ? firstWords(s.description) : 'value'}>`,
    );
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `${options.subject} needs ${missing.map((s) => s.label).join(', ')}: give ${sets.join(' ')} (or run on a terminal to be asked); nothing written`,
    );
  }
  return { values, remembered, notes };
}

/** `{name}` placeholders of a registry value replaced by the values decided for them (unknown ones stay). */
export function fillTemplate(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (raw, name: string) => values.get(name) ?? raw);
}

function firstWords(text: string): string {
  const words = text.split(/\s+/).slice(0, 4).join(' ');
  return words.replace(/[.:;,]+$/, '');
}
