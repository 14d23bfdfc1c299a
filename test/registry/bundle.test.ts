import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { openBundle } from '../../src/registry/index.js';

const manifest = {
  manifest_version: '0.3',
  name: 'tiny',
  version: '1.0.0',
  description: 'd',
  author: { name: 'a' },
  server: {
    type: 'node',
    entry_point: 'index.js',
    mcp_config: { command: 'node', args: ['${__dirname}/index.js'] },
  },
};
const zip = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Buffer.from(v)])));

describe('openBundle', () => {
  it('refuses a torn signature block', async () => {
    const body = Buffer.from(zip({ 'manifest.json': JSON.stringify(manifest), 'index.js': '' }));
    const signature = Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(signature.length);
    const signed = Buffer.concat([
      body,
      Buffer.from('MCPB_SIG_V1'),
      length,
      signature,
      Buffer.from('MCPB_SIG_END'),
    ]);
    // A well-framed block is split off and verified (test/registry/bundle-signature.test.ts).
    await expect(openBundle(signed, 'x.mcpb')).rejects.toThrow(
      'its signature block holds no readable PKCS#7',
    );
    length.writeUInt32LE(99);
    const torn = Buffer.concat([
      body,
      Buffer.from('MCPB_SIG_V1'),
      length,
      signature,
      Buffer.from('MCPB_SIG_END'),
    ]);
    await expect(openBundle(torn, 'x.mcpb')).rejects.toThrow(
      'bundle x.mcpb: its signature block is damaged (its length does not match); nothing written',
    );
  });

  it('refuses a path out of the bundle, a bad manifest, and a file that is not the one published', async () => {
    const outside = zip({ 'manifest.json': JSON.stringify(manifest), 'index.js': '', '../evil.js': '' });
    await expect(openBundle(outside, 'e.mcpb')).rejects.toThrow(
      'bundle e.mcpb: it holds "../evil.js", a path outside the bundle',
    );
    const noVersion = zip({
      'manifest.json': JSON.stringify({ ...manifest, version: undefined }),
      'index.js': '',
    });
    await expect(openBundle(noVersion, 'v.mcpb')).rejects.toThrow('bundle v.mcpb: manifest.json at version:');
    const good = zip({ 'manifest.json': JSON.stringify(manifest), 'index.js': '' });
    await expect(openBundle(good, 'g.mcpb', '0'.repeat(64))).rejects.toThrow(
      /its SHA-256 is [0-9a-f]{64}, the registry says 0{64}/,
    );
  });
});
