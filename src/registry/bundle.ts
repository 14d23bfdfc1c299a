import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, normalize, resolve, sep } from 'node:path';
import { unzipSync } from 'fflate';
import { formatJsonPath } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { errorMessage } from '../internal/error-message.js';
import { describeRemoteError } from '../internal/remote-failure.js';
import { type BundleManifest, BundleManifestSchema } from './bundle-manifest.js';
import { type BundleSignature, splitSignature, verifyBundleSignature } from './bundle-signature.js';

/** An MCP bundle read and checked, not yet unpacked. */
export interface OpenedBundle {
  /** Where it came from: a path or a URL. */
  source: string;
  manifest: BundleManifest;
  /** SHA-256 of the whole file, as the registry's `fileSha256` states it. */
  sha256: string;
  /** Its `mcpb sign` signature, verified: who signed it, or `unsigned`. */
  signature: BundleSignature;
  files: Record<string, Uint8Array>;
}

const MAX_BUNDLE_BYTES = 256 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;

/** True for what `mcpkit add` treats as a bundle: a path or URL ending in `.mcpb` (or the older `.dxt`). */
export function isBundleReference(text: string): boolean {
  return /\.(mcpb|dxt)(\?.*)?$/i.test(text);
}

/** Reads a bundle from a file or an http(s) URL. */
export async function readBundleBytes(
  source: string,
  cwd: string,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  if (/^https?:\/\//i.test(source)) {
    let response: Response;
    try {
      response = await fetch(source, signal ? { signal } : {});
    } catch (error) {
      const cause = describeRemoteError(error, source)?.cause ?? errorMessage(error);
      throw new McpkitError('REQUEST_FAILED', `cannot download the bundle ${source}: ${cause}`, {
        cause: error,
      });
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new McpkitError(
        'REQUEST_FAILED',
        `cannot download the bundle ${source}: HTTP ${response.status} ${response.statusText}`,
      );
    }
    return new Uint8Array(await response.arrayBuffer());
  }
  const file = resolve(cwd, source);
  try {
    return await readFile(file);
  } catch (cause) {
    throw new McpkitError('IO', `cannot read the bundle ${file}: ${errorMessage(cause)}`, { cause, file });
  }
}

/**
 * Checks a bundle: its size and SHA-256 (against `expectedSha256` when the registry gave one), its
 * signature where it has one (a signature that does not match its contents is refused), the zip (no path out of the bundle), and the manifest — valid, and true
 * about the archive: the entry point it names is in it. Every failure is one line naming the bundle.
 */
export async function openBundle(
  bytes: Uint8Array,
  source: string,
  expectedSha256?: string,
): Promise<OpenedBundle> {
  const bad = (what: string) =>
    new McpkitError('CONFIG_INVALID', `bundle ${source}: ${what}; nothing written`);
  if (bytes.length > MAX_BUNDLE_BYTES)
    throw bad(`${bytes.length} bytes is more than mcpkit unpacks (256 MiB)`);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (expectedSha256 !== undefined && expectedSha256.toLowerCase() !== sha256)
    throw bad(
      `its SHA-256 is ${sha256}, the registry says ${expectedSha256}: the file is not the one published`,
    );
  const split = splitSignature(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), bad);
  // Before the zip is read: a changed file is refused for what it is, not for what the change broke.
  const signature = await verifyBundleSignature(split, bad);
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(split.zip);
  } catch (error) {
    throw bad(`not a zip archive (${errorMessage(error)})`);
  }
  let total = 0;
  for (const [name, data] of Object.entries(files)) {
    total += data.length;
    if (!isSafeMember(name)) throw bad(`it holds "${name}", a path outside the bundle`);
  }
  if (total > MAX_UNPACKED_BYTES) throw bad('it unpacks to more than 1 GiB');
  const manifestBytes = files['manifest.json'];
  if (!manifestBytes) throw bad('no manifest.json at its top level');
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(manifestBytes).toString('utf8'));
  } catch (error) {
    throw bad(`manifest.json is not valid JSON (${errorMessage(error)})`);
  }
  const parsed = BundleManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw bad(
      `manifest.json${issue ? ` at ${formatJsonPath(issue.path as (string | number)[]) || '(top)'}: ${issue.message}` : ' is invalid'}`,
    );
  }
  const manifest = parsed.data;
  const entry = normalize(manifest.server.entry_point).split(sep).join('/');
  if (!isSafeMember(entry))
    throw bad(`manifest.json names entry point "${manifest.server.entry_point}", outside the bundle`);
  if (!(entry in files))
    throw bad(`manifest.json names entry point "${manifest.server.entry_point}", which is not in the bundle`);
  return { source, manifest, sha256, signature, files };
}

function isSafeMember(name: string): boolean {
  if (name.startsWith('/') || name.includes('\\') || /^[A-Za-z]:/.test(name)) return false;
  return !name.split('/').includes('..');
}

/**
 * Unpacks a bundle under `<data dir>/bundles/<name>-<version>-<sha>` (kept when already there) and returns
 * the directory. Written to a temp directory first and renamed, so a half-unpacked bundle is never used.
 */
export async function installBundle(bundle: OpenedBundle, dataDir: string): Promise<string> {
  const slug = `${bundle.manifest.name}-${bundle.manifest.version}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  const dir = join(dataDir, 'bundles', `${slug}-${bundle.sha256.slice(0, 12)}`);
  if (await exists(join(dir, 'manifest.json'))) return dir;
  const temp = `${dir}.tmp-${randomBytes(4).toString('hex')}`;
  try {
    for (const [name, data] of Object.entries(bundle.files)) {
      if (name.endsWith('/')) continue;
      const target = join(temp, name);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, data);
    }
    // Zip entries carry no Unix mode here: the entry point of a binary bundle must be executable.
    if (bundle.manifest.server.type === 'binary')
      await chmod(join(temp, bundle.manifest.server.entry_point), 0o755);
    await rename(temp, dir);
  } catch (cause) {
    await rm(temp, { recursive: true, force: true });
    if (await exists(join(dir, 'manifest.json'))) return dir;
    throw new McpkitError('IO', `cannot unpack the bundle into ${dir}: ${errorMessage(cause)}`, {
      cause,
      file: dir,
    });
  }
  return dir;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
