import { describe, expect, it } from 'vitest';
import { childEnvironment } from '../../src/internal/child-environment.js';

describe('childEnvironment', () => {
  const parent = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    LC_ALL: 'C.UTF-8',
    XDG_CONFIG_HOME: '/home/u/.cfg',
    MCPKIT_CONFIG_DIR: '/tmp/mcpkit-cfg',
    GITHUB_TOKEN: 'ghp_secret',
    AWS_SECRET_ACCESS_KEY: 'aws-secret',
  };

  it('passes where configuration lives and the basics, never a secret', () => {
    expect(childEnvironment(parent, undefined)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LC_ALL: 'C.UTF-8',
      XDG_CONFIG_HOME: '/home/u/.cfg',
      MCPKIT_CONFIG_DIR: '/tmp/mcpkit-cfg',
    });
  });

  it('adds named variables, or everything, and the caller’s own on top', () => {
    expect(childEnvironment(parent, { PATH: '/opt/bin' }, ['GITHUB_TOKEN'])).toMatchObject({
      PATH: '/opt/bin',
      GITHUB_TOKEN: 'ghp_secret',
    });
    expect(childEnvironment(parent, undefined, ['GITHUB_TOKEN'])).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    expect(childEnvironment(parent, undefined, true)).toMatchObject({ AWS_SECRET_ACCESS_KEY: 'aws-secret' });
  });
});
