// A fresh set of service keys (docs/security.md): one SERVICE_SIGNING_KEY per service (a secret:
// each service gets only its own) and the SERVICE_PUBLIC_KEYS line every service gets (not
// secret). Ed25519; a signing key is the 32-byte seed in base64, a public key its 32 raw bytes.
import { generateKeyPairSync } from 'node:crypto';

export const SERVICES = ['gateway', 'core', 'delivery', 'evidence'];

export function generateServiceKeys() {
  const last32 = (der) => der.subarray(der.length - 32).toString('base64');
  const signingKeys = {};
  const publicKeys = [];
  for (const service of SERVICES) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    signingKeys[service] = last32(privateKey.export({ format: 'der', type: 'pkcs8' }));
    publicKeys.push(`${service}:${last32(publicKey.export({ format: 'der', type: 'spki' }))}`);
  }
  return { signingKeys, SERVICE_PUBLIC_KEYS: publicKeys.join(',') };
}
