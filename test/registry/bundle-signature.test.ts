import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signMcpbFile } from '@anthropic-ai/mcpb';
import { packExtension } from '@anthropic-ai/mcpb/cli';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { splitSignature, verifyBundleSignature } from '../../src/registry/bundle-signature.js';
import { runInProcess } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';

// Bundles built by mcpb's packer and signed by its signer (`mcpb sign`'s code), with certificates openssl makes
// here: a self-signed one (what `mcpb sign --self-signed` makes), and a CA with a certificate it issued.
const GREETER = fileURLToPath(new URL('../fixtures/registry/greeter', import.meta.url));

let dir: string;
let unsigned: string;
let selfSigned: string;
/** Bundles signed by certificates the test CA issued: for code signing, for TLS only, expired. */
const signedBy = { codeSigning: '', serverAuth: '', expired: '' };
let caPem: string;
let ws: Workspace;

const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const mcpkit = (args: string[]) => runInProcess(ws, args, { MCPKIT_DATA_DIR: join(ws.root, 'data') });
const bad = (what: string) => new Error(what);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-signed-'));
  await cp(GREETER, join(dir, 'greeter'), { recursive: true });
  unsigned = join(dir, 'unsigned.mcpb');
  expect(
    await packExtension({ extensionPath: join(dir, 'greeter'), outputPath: unsigned, silent: true }),
  ).toBe(true);
  // `openssl` arguments split on spaces; a subject (which holds none) is passed apart.
  const ssl = (args: string, subject?: string) =>
    openssl(...args.split(' '), ...(subject ? ['-subj', subject] : []));
  const newKey = '-newkey rsa:2048 -nodes';
  ssl(`req -x509 ${newKey} -days 30 -keyout self.key -out self.pem`, '/CN=Ada Publisher/O=Acme');
  ssl(`req -x509 ${newKey} -days 30 -keyout ca.key -out ca.pem`, '/CN=Test Root CA');
  ssl(`req -new ${newKey} -keyout leaf.key -out leaf.csr`, '/CN=Grace Publisher');
  caPem = await readFile(join(dir, 'ca.pem'), 'utf8');
  selfSigned = join(dir, 'self-signed.mcpb');
  await cp(unsigned, selfSigned);
  signMcpbFile(selfSigned, join(dir, 'self.pem'), join(dir, 'self.key'));
  const leaves = {
    codeSigning: [30, 'codeSigning'],
    serverAuth: [30, 'serverAuth'],
    expired: [-1, 'codeSigning'],
  };
  for (const [kind, [days, purpose]] of Object.entries(leaves) as [
    keyof typeof signedBy,
    [number, string],
  ][]) {
    await writeFile(join(dir, `${kind}.cnf`), `extendedKeyUsage=${purpose}\n`);
    ssl(
      `x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days ${days} -extfile ${kind}.cnf -out ${kind}.pem`,
    );
    signedBy[kind] = join(dir, `${kind}.mcpb`);
    await cp(unsigned, signedBy[kind]);
    signMcpbFile(signedBy[kind], join(dir, `${kind}.pem`), join(dir, 'leaf.key'), [join(dir, 'ca.pem')]);
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe('a signed bundle', () => {
  it('is added with its signer named; an unsigned one with a note that nothing vouches for it', async () => {
    const signed = await mcpkit(['add', selfSigned, '--set', 'greeting=Hi']);
    expect(signed.code).toBe(0);
    expect(signed.stderr).toMatch(
      /^note: the bundle is signed by CN=Ada Publisher, O=Acme with a self-signed certificate: the file is unchanged since that key signed it, but nothing vouches for who holds the key \(SHA-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}\)\n$/m,
    );
    const plain = await mcpkit(['add', unsigned, '--set', 'greeting=Hi', '--as', 'plain']);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain('note: the bundle is not signed: nothing says who made it\n');
  });

  it('with one byte changed after signing is refused in one line, nothing written', async () => {
    const bytes = Buffer.from(await readFile(selfSigned));
    // One byte in the middle of the zip, before the signature block.
    const at = bytes.indexOf('MCPB_SIG_V1') >> 1;
    bytes[at] = (bytes[at] ?? 0) ^ 0x01;
    const tampered = join(ws.root, 'tampered.mcpb');
    await writeFile(tampered, bytes);
    const { code, stdout, stderr } = await mcpkit(['add', tampered, '--set', 'greeting=Hi']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `mcpkit: bundle ${tampered}: its signature does not match its contents (Message digest doesn't match): the file was changed after it was signed, get it again from its publisher; nothing written\n`,
    );
    await expect(readFile(join(ws.project, '.mcp.json'))).rejects.toThrow('ENOENT');
  });

  it('a signature block that holds no PKCS#7 is refused', async () => {
    const body = await readFile(unsigned);
    const junk = Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(junk.length);
    const file = Buffer.concat([body, Buffer.from('MCPB_SIG_V1'), length, junk, Buffer.from('MCPB_SIG_END')]);
    await expect(verifyBundleSignature(splitSignature(file, bad), bad)).rejects.toThrow(
      /^its signature block holds no readable PKCS#7 signature \(/,
    );
  });

  it('names the issuer; trusted only through a chain to a trusted root, valid today, for code signing', async () => {
    const check = async (file: string, roots?: string[]) =>
      verifyBundleSignature(splitSignature(await readFile(file), bad), bad, roots);
    expect(await check(signedBy.codeSigning)).toMatchObject({
      status: 'signed',
      subject: 'CN=Grace Publisher',
      issuer: 'CN=Test Root CA',
      trust: 'unknown issuer',
    });
    expect(await check(signedBy.codeSigning, [caPem])).toMatchObject({ trust: 'trusted' });
    expect(await check(signedBy.serverAuth, [caPem])).toMatchObject({ trust: 'not for code signing' });
    expect(await check(signedBy.expired, [caPem])).toMatchObject({ trust: 'expired' });
    expect(await check(selfSigned, [caPem])).toMatchObject({
      trust: 'self-signed',
      issuer: 'CN=Ada Publisher, O=Acme',
    });
  });
});
