import type { InputSpec } from './inputs.js';
import { variableName } from './inputs.js';
import type {
  RegistryArgument,
  RegistryInput,
  RegistryKeyValue,
  RegistryPackage,
  RegistryRemote,
} from './server-json.js';

/**
 * The inputs of a registry package or remote, in the order they are asked: arguments, environment
 * variables, headers, and every `{variable}` of a fixed value. A value the publisher fixed is not asked.
 */
export function packageInputs(pkg: RegistryPackage): InputSpec[] {
  const specs: InputSpec[] = [];
  for (const arg of [...(pkg.runtimeArguments ?? []), ...(pkg.packageArguments ?? [])])
    specs.push(...argumentInputs(arg));
  for (const env of pkg.environmentVariables ?? [])
    specs.push(...keyValueInputs(env, 'environment variable'));
  return unique(specs);
}

/** The inputs of a remote: its URL's variables and its headers. */
export function remoteInputs(remote: RegistryRemote): InputSpec[] {
  const specs = Object.entries(remote.variables ?? {}).map(([key, input]) =>
    spec(key, `URL variable ${key}`, input, variableName(key)),
  );
  for (const header of remote.headers ?? []) specs.push(...keyValueInputs(header, 'header'));
  return unique(specs);
}

/** The key an argument's own value is asked under: its hint, else its flag without dashes. */
export function argumentKey(arg: RegistryArgument): string {
  return arg.valueHint ?? (arg.name ?? 'value').replace(/^-+/, '');
}

function argumentInputs(arg: RegistryArgument): InputSpec[] {
  if (arg.value !== undefined) return variableInputs(arg);
  const key = argumentKey(arg);
  return [spec(key, `argument ${arg.name ?? key}`, arg, variableName(key))];
}

function keyValueInputs(item: RegistryKeyValue, kind: string): InputSpec[] {
  if (item.value !== undefined) return variableInputs(item);
  // An environment variable's secret is read from the variable of the same name.
  return [spec(item.name, `${kind} ${item.name}`, item, variableName(item.name))];
}

/** `{name}`s in a fixed value: each is asked as its own input. */
function variableInputs(item: RegistryInput): InputSpec[] {
  return Object.entries(item.variables ?? {}).map(([key, input]) =>
    spec(key, `variable ${key}`, input, variableName(key)),
  );
}

function spec(key: string, label: string, input: RegistryInput, variable: string): InputSpec {
  return {
    key,
    label,
    required: input.isRequired === true,
    secret: input.isSecret === true,
    variable,
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.default === undefined ? {} : { default: input.default }),
    ...(input.choices === undefined ? {} : { choices: input.choices }),
    ...(input.format === undefined ? {} : { format: input.format }),
  };
}

/** One input per key: a variable used twice is asked once. */
function unique(specs: InputSpec[]): InputSpec[] {
  const seen = new Set<string>();
  return specs.filter((s) => !seen.has(s.key) && seen.add(s.key));
}
