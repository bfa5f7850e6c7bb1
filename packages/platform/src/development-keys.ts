import { createHash, createPublicKey } from 'node:crypto';
import { SERVICE_NAMES, devServiceSeed, rawPublicKey, signingKeyFromSeed } from './service-auth.ts';

// Every development key of the cluster, in one place: they are derived from public constants so
// that `npm start` and the tests need no setup, which is exactly why anyone can mint them. Outside
// CLUSTER_ENV=development each configured key is compared with all of them by fingerprint, whatever
// role it is given in (a service's seed as another's, a sealing key as a signing key), and refused.

/** The development material of each sealing keyring, used when the keyring is unset in development. */
export const DEV_SEALING_KEYS = {
  WEBHOOK_SECRET_KEY: 'dev-only-webhook-secret-key: set WEBHOOK_SECRET_KEY in production',
  EVIDENCE_SECRET_KEY: 'dev-only-evidence-key: set EVIDENCE_SECRET_KEY in production',
  CODEHOST_SECRET_KEY: 'dev-only-codehost-key: set CODEHOST_SECRET_KEY in production',
} as const;

/** The development seed of the platform's evidence signing key (EVIDENCE_SIGNING_KEY unset in development). */
export const DEV_EVIDENCE_SIGNING_SEED = createHash('sha256').update('cluster development evidence signing key').digest();

const fingerprint = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const publicHalf = (seed: Buffer) => rawPublicKey(createPublicKey(signingKeyFromSeed(seed)));

/** Fingerprints of every development key: seeds, their public halves, and the sealing materials as text. */
const DEVELOPMENT_FINGERPRINTS: ReadonlySet<string> = new Set(
  [
    ...[...SERVICE_NAMES.map(devServiceSeed), DEV_EVIDENCE_SIGNING_SEED].flatMap((seed) => [seed, publicHalf(seed)]),
    ...Object.values(DEV_SEALING_KEYS).map((material) => Buffer.from(material)),
  ].map(fingerprint),
);

/**
 * Whether a configured key value is one of the development keys: its text (a sealing material), or
 * its base64 decoding (a seed or a public key), has a development key's fingerprint.
 */
export function isDevelopmentKey(value: string): boolean {
  const forms = [Buffer.from(value), Buffer.from(value, 'base64')];
  return forms.some((bytes) => DEVELOPMENT_FINGERPRINTS.has(fingerprint(bytes)));
}
