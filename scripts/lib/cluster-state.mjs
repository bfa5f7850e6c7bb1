// Where the running `npm start` cluster is: `npm start` writes `<data dir>/cluster.json` once its
// services are up and removes it when it stops; `npm run admin` reads it, so that it works on that
// cluster's database and core (the ports `npm start` was given), not on the defaults' (another
// cluster's). The data dir is `.data/`, or LOCAL_DATA_DIR as for the local servers.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DATA } from './infra.mjs';

const file = () => path.join(DATA, 'cluster.json');

/**
 * Records the running cluster (`state`: { databaseUrl, postgresUrl, localDbRoles, kafkaBrokers,
 * gatewayUrl, coreUrl, deliveryUrl, evidenceUrl, development }) as this process's. Private to the
 * user (a DATABASE_URL given to `npm start` may carry a password).
 */
export function writeClusterState(state) {
  mkdirSync(DATA, { recursive: true });
  const tmp = `${file()}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), ...state }, null, 2)}\n`, {
    mode: 0o600,
  });
  renameSync(tmp, file());
}

/** The running cluster's state; undefined when there is none (or the `npm start` that wrote it is gone). */
export function readClusterState() {
  if (!existsSync(file())) return undefined;
  try {
    const state = JSON.parse(readFileSync(file(), 'utf8'));
    process.kill(state.pid, 0);
    return state;
  } catch {
    return undefined;
  }
}

/** Removes the state when this process wrote it. */
export function removeClusterState() {
  try {
    if (JSON.parse(readFileSync(file(), 'utf8')).pid === process.pid) rmSync(file(), { force: true });
  } catch {
    /* none */
  }
}
