import type { Migration } from '@cluster/db';
import { evidenceKeys } from './001-evidence-keys.ts';

/** Every migration of the evidence schema, in order. Append; never edit a released one. */
export const migrations: Migration[] = [evidenceKeys];
