import type { ArgvWord } from './contract.js';

/**
 * Turns a tool's argv template and validated arguments into the words handed to `spawn`. No shell ever sees
 * them; beyond that, a value can never become an option: a positional value starting with "-" is only
 * allowed after a literal "--", and an option value starting with "-" only in `--flag=value` form.
 */
export function buildArgv(
  template: readonly ArgvWord[],
  args: Readonly<Record<string, unknown>>,
): { ok: true; argv: string[] } | { ok: false; problems: string[] } {
  const argv: string[] = [];
  const problems: string[] = [];
  let afterDashDash = false;
  const words = (name: string, value: unknown): string[] => {
    const list = Array.isArray(value) ? value : [value];
    return list.map((item) => {
      const word = typeof item === 'string' ? item : JSON.stringify(item);
      if (word.includes('\0')) problems.push(`argument ${name}: contains a NUL byte`);
      return word;
    });
  };
  for (const word of template) {
    if (typeof word === 'string') {
      if (word === '--') afterDashDash = true;
      if (!word.startsWith('$')) {
        argv.push(word);
        continue;
      }
      if (word.startsWith('$$')) {
        argv.push(word.slice(1));
        continue;
      }
      const name = word.slice(1);
      const value = args[name];
      if (value === undefined) continue;
      for (const item of words(name, value)) {
        if (item.startsWith('-') && !afterDashDash) {
          problems.push(`argument ${name}: "${item}" starts with "-" and would be read as an option`);
        }
        argv.push(item);
      }
    } else if ('switch' in word) {
      if (args[word.if] === true) argv.push(word.switch);
    } else {
      const value = args[word.value];
      if (value === undefined || value === false) continue;
      if (value === true && !Array.isArray(value)) {
        argv.push(word.option);
        continue;
      }
      for (const item of words(word.value, value)) {
        if (word.join === '=') argv.push(`${word.option}=${item}`);
        else {
          const numeric = typeof value === 'number' || (Array.isArray(value) && typeof value[0] === 'number');
          if (item.startsWith('-') && !numeric) {
            problems.push(`argument ${word.value}: "${item}" starts with "-" and would be read as an option`);
          }
          argv.push(word.option, item);
        }
      }
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, argv };
}
