import { describe, expect, it } from 'vitest';
import { type InputSpec, resolveInputs } from '../../src/registry/index.js';

const token: InputSpec = {
  key: 'API_TOKEN',
  label: 'environment variable API_TOKEN',
  required: true,
  secret: true,
  variable: 'API_TOKEN',
};
const region: InputSpec = {
  key: 'REGION',
  label: 'environment variable REGION',
  required: false,
  secret: false,
  variable: 'REGION',
  default: 'eu',
};

describe('resolveInputs', () => {
  it('asks a secret (hidden, by the CLI) for the user file and never remembers it in source', async () => {
    const asked: string[] = [];
    const resolved = await resolveInputs([token, region], {
      given: {},
      secretsAsReferences: false,
      subject: 'x',
      ask: async (input) => {
        asked.push(input.key);
        return input.secret ? 'typed-secret' : undefined;
      },
    });
    expect(asked).toEqual(['API_TOKEN']);
    expect([...resolved.values]).toEqual([
      ['API_TOKEN', 'typed-secret'],
      ['REGION', 'eu'],
    ]);
    expect(resolved.remembered).toEqual({ REGION: 'eu' });
  });

  it('refuses a --set key the entry does not have, naming the ones it has', async () => {
    await expect(
      resolveInputs([token, region], {
        given: { REGOIN: 'us' },
        secretsAsReferences: true,
        subject: 'io.x/y 1.0.0',
      }),
    ).rejects.toThrow(
      '--set REGOIN: io.x/y 1.0.0 has no such input (its inputs: API_TOKEN, REGION); nothing written',
    );
  });

  it('refuses a value outside the choices', async () => {
    const units: InputSpec = {
      key: 'units',
      label: 'argument --units',
      required: false,
      secret: false,
      variable: 'UNITS',
      choices: ['metric', 'imperial'],
    };
    await expect(
      resolveInputs([units], { given: { units: 'kelvin' }, secretsAsReferences: true, subject: 's' }),
    ).rejects.toThrow('argument --units of s must be one of metric, imperial, got "kelvin"; nothing written');
  });
});
