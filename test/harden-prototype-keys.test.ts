import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolContract } from '../src/bridge/contract.js';
import { inputSchemaOf, lazyValidator, resolveArguments } from '../src/bridge/input.js';
import { expandVariables } from '../src/config/variables.js';
import { exposedName } from '../src/gateway/catalog.js';
import { PinStore } from '../src/gateway/pins.js';
import { identifierWords } from '../src/search/db-schemas/schema-words.js';
import { PROTOTYPE_NAMES } from './serve/frame-fuzz.js';

// Issue 34's audit: every place a name from the wire or a config indexes a plain object. Each of these
// found an Object.prototype member for a name like `constructor` (a wrong answer or a crash on main).

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-proto-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('names from Object.prototype are names like any other', () => {
  it('the gateway: an upstream tool keeps its own name when the entry renames others', () => {
    for (const name of PROTOTYPE_NAMES)
      expect(exposedName('none', 'lib', name, { rename: { other: 'renamed' } })).toBe(
        exposedName('none', 'lib', name),
      );
    expect(exposedName('none', 'lib', 'constructor', { rename: { other: 'x' } })).toBe('constructor');
  });

  it('the gateway: a tool named constructor or __proto__ is pinned as new, then the same', async () => {
    const pins = await new PinStore(join(dir, 'pins.json')).load();
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const tool = { name, inputSchema: { type: 'object' as const } };
      expect([name, pins.peek('lib', tool)]).toEqual([name, 'new']);
      expect([name, pins.check('lib', tool)]).toEqual([name, 'new']);
      expect([name, pins.check('lib', tool)]).toEqual([name, 'same']);
    }
    await pins.save();
    const again = await new PinStore(join(dir, 'pins.json')).load();
    const proto = { name: '__proto__', inputSchema: { type: 'object' as const } };
    expect(again.peek('lib', proto)).toBe('same');
  });

  it('config: ${constructor} is an unset variable, not the text of a function', () => {
    const missing: string[] = [];
    expect(expandVariables('x${constructor}y', {}, (name) => missing.push(name))).toBe('x${constructor}y');
    expect(missing).toEqual(['constructor']);
    expect(expandVariables('${toString:-fallback}', {}, () => undefined)).toBe('fallback');
  });

  it('search: a database column named constructor is described, not crashed on', () => {
    expect(identifierWords('constructor')).toEqual([]);
    expect(identifierWords('cust_constructor')).toEqual(['customer']);
  });

  it('the bridge: an argument named constructor left out gets its default, not Object', async () => {
    const tool = {
      description: 'T.',
      argv: ['$constructor'],
      args: { constructor: { type: 'string', default: 'made' }, toString: { type: 'string' } },
    } as unknown as ToolContract;
    const validate = await lazyValidator(inputSchemaOf(tool))();
    const resolved = resolveArguments(tool, {}, {}, validate);
    expect(resolved.ok && { ...resolved.args }).toEqual({ constructor: 'made' });
  });
});
