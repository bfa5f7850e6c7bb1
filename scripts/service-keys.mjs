// Prints a fresh set of service keys for a deployment (docs/security.md):
//
//   node scripts/service-keys.mjs
//
// One SERVICE_SIGNING_KEY per service (a secret: give each only to its own service), and the
// SERVICE_PUBLIC_KEYS line every service gets (not secret).
import { generateServiceKeys } from './lib/service-keys.mjs';

process.stdout.write(`${JSON.stringify(generateServiceKeys(), null, 2)}\n`);
