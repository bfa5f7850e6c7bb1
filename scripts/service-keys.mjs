// Prints a fresh set of service keys for a deployment (docs/security.md):
//
//   node scripts/service-keys.mjs
//
// One SERVICE_SIGNING_KEY per service (a secret: give each only to its own service), and the
// SERVICE_PUBLIC_KEYS line every service gets (not secret). Ed25519; a signing key is the
// 32-byte seed in base64, a public key its 32 raw bytes in base64.
import { generateKeyPairSync } from 'node:crypto';

const SERVICES = ['gateway', 'core', 'delivery', 'evidence'];
const last32 = (der) => der.subarray(der.length - 32).toString('base64');
const signingKeys = {};
const publicKeys = [];
for (const service of SERVICES) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  signingKeys[service] = last32(privateKey.export({ format: 'der', type: 'pkcs8' }));
  publicKeys.push(`${service}:${last32(publicKey.export({ format: 'der', type: 'spki' }))}`);
}
process.stdout.write(`${JSON.stringify({ signingKeys, SERVICE_PUBLIC_KEYS: publicKeys.join(',') }, null, 2)}\n`);
