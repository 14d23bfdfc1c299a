import { webcrypto } from 'node:crypto';
import {
  DPOP_SUPPORTED_ALGS,
  type DpopAlg,
  type DpopKeyPair,
  DpopSession,
  generateDpopKeyPair,
} from '@modelcontextprotocol/client';

/** A DPoP key as the token store keeps it: the private JWK (the store is 0600) and its algorithm. */
export interface StoredDpopKey {
  alg: DpopAlg;
  privateJwk: webcrypto.JsonWebKey;
  publicJwk: webcrypto.JsonWebKey;
  thumbprint: string;
}

/** The first algorithm both the authorization server and the SDK support, ES256 first. */
export function dpopAlgorithm(supported: readonly string[]): DpopAlg | undefined {
  const ours = DPOP_SUPPORTED_ALGS as readonly string[];
  if (supported.includes('ES256')) return 'ES256';
  return supported.find((alg) => ours.includes(alg)) as DpopAlg | undefined;
}

/**
 * A DPoP session whose key outlives the process: tokens are bound to the key (`cnf.jkt`), so the CLI and a
 * gateway using the same stored tokens must sign with the same key. New keys are extractable for that
 * reason only, and stored next to the tokens they bind.
 */
export async function dpopSession(
  stored: StoredDpopKey | undefined,
  alg: DpopAlg,
  save: (key: StoredDpopKey) => Promise<void>,
): Promise<DpopSession> {
  if (stored) return DpopSession.create({ alg: stored.alg, keyPair: await importKey(stored) });
  const keyPair = await generateDpopKeyPair({ alg, extractable: true });
  await save({
    alg,
    privateJwk: await webcrypto.subtle.exportKey('jwk', keyPair.privateKey),
    publicJwk: keyPair.publicJwk as webcrypto.JsonWebKey,
    thumbprint: keyPair.thumbprint,
  });
  return DpopSession.create({ alg, keyPair });
}

async function importKey(stored: StoredDpopKey): Promise<DpopKeyPair> {
  const params = importParams(stored.alg);
  const privateKey = await webcrypto.subtle.importKey('jwk', stored.privateJwk, params, false, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('jwk', stored.publicJwk, params, true, ['verify']);
  return {
    privateKey,
    publicKey,
    publicJwk: stored.publicJwk as DpopKeyPair['publicJwk'],
    thumbprint: stored.thumbprint,
    alg: stored.alg,
  };
}

function importParams(
  alg: DpopAlg,
): webcrypto.AlgorithmIdentifier | webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams {
  if (alg === 'EdDSA') return { name: 'Ed25519' };
  const bits = alg.slice(2);
  if (alg.startsWith('ES')) return { name: 'ECDSA', namedCurve: bits === '512' ? 'P-521' : `P-${bits}` };
  return { name: alg.startsWith('PS') ? 'RSA-PSS' : 'RSASSA-PKCS1-v1_5', hash: `SHA-${bits}` };
}
