import type { JsonObject } from '@bufbuild/protobuf';
import { TIME_ENTRY_STATUSES } from '@cluster/contracts';
import { formatHours } from './duration.ts';
import type { CostSums, MinutesGroup } from './store.ts';

/**
 * TimeSummary of a project from its minutes grouped by user, status and billability
 * (the store narrows them to one release and a workDate range): total, billable,
 * per-status and per-user minutes. byStatus lists every status (0 when none);
 * byUser is ordered by minutes, then userId.
 */
export function timeSummary(projectId: string, releaseId: string | null, groups: MinutesGroup[]): JsonObject {
  let totalMinutes = 0;
  let billableMinutes = 0;
  const byStatus: Record<string, number> = Object.fromEntries(TIME_ENTRY_STATUSES.map((s) => [s, 0]));
  const byUser = new Map<string, number>();
  for (const g of groups) {
    const minutes = Number(g.minutes);
    totalMinutes += minutes;
    if (g.billable) billableMinutes += minutes;
    byStatus[g.status] = (byStatus[g.status] ?? 0) + minutes;
    byUser.set(g.userId, (byUser.get(g.userId) ?? 0) + minutes);
  }
  return {
    projectId,
    releaseId,
    totalMinutes,
    totalHours: formatHours(totalMinutes),
    billableMinutes,
    byStatus,
    byUser: [...byUser.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([userId, total]) => ({ userId, totalMinutes: total })),
  };
}

/**
 * CostSummary of a project from its entries' cost sums (docs/decisions-time.md; the
 * store computes them):
 * - plannedCost: per entry mediumCost, else the midpoint of lowCost and highCost, else the one of them present;
 * - approvedCost: committedCost of entries whose costApprovalStatus is approved;
 * - pendingCost: committedCost of entries awaiting approval (pending_admin, pending_manager, pending_client);
 * - actualCost: committedCost of every entry whose cost was not rejected.
 * Each is a decimal string with 2 decimals, or null when no entry contributes. Currency: the organization's (USD when unset).
 */
export function costSummary(projectId: string, currency: string | undefined, sums: CostSums): JsonObject {
  return {
    projectId,
    currency: currency || 'USD',
    plannedCost: sums.plannedCost,
    actualCost: sums.actualCost,
    approvedCost: sums.approvedCost,
    pendingCost: sums.pendingCost,
  };
}
