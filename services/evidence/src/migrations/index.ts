import type { Migration } from '@cluster/db';
import { evidenceKeys } from './001-evidence-keys.ts';
import { evidencePackages } from './002-evidence-packages.ts';
import { evidenceKeyPrefixes } from './003-evidence-key-prefixes.ts';
import { idempotencyKeys } from './004-idempotency-keys.ts';

/** Every migration of the evidence schema, in order. Append; never edit a released one. */
export const migrations: Migration[] = [evidenceKeys, evidencePackages, evidenceKeyPrefixes, idempotencyKeys];
