import { buildServicesOnce } from './processes.ts';

/** Vitest's global setup: tests that start services as processes run a dist built from the current sources. */
export default async function setup(): Promise<void> {
  await buildServicesOnce();
}
