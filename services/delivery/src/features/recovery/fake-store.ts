import type { RecoveryRow, RecoveryStore } from './store.ts';

/**
 * An in-memory RecoveryStore for unit tests of the rules: it keeps recoveries; leasing and
 * re-queueing deliveries are the real store's (test/webhook-recovery.test.ts covers them).
 */
export function createFakeRecoveryStore(): RecoveryStore & { rows: RecoveryRow[] } {
  const rows: RecoveryRow[] = [];
  return {
    rows,
    async leaseOne() {
      return undefined;
    },
    async insert(values) {
      const now = new Date();
      const row: RecoveryRow = {
        ...values,
        status: 'running',
        requeued: 0,
        cursorCreatedAt: null,
        cursorId: null,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
      };
      rows.push(row);
      return { ...row };
    },
    async find(organizationId, subscriptionId, id) {
      const row = rows.find((r) => r.id === id && r.organizationId === organizationId && r.subscriptionId === subscriptionId);
      return row && { ...row };
    },
    async requeueBatch(recovery) {
      const row = rows.find((r) => r.id === recovery.id);
      if (row) Object.assign(row, { status: 'completed', completedAt: new Date() });
      return { requeued: 0, done: true };
    },
    async stale() {
      return [];
    },
  };
}
