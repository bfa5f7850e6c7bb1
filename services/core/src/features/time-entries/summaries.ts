import type { Knex } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { formatHours } from './duration.ts';
import { TIME_ENTRY_STATUSES } from './state-machine.ts';

/**
 * TimeSummary of a project: total, billable, per-status and per-user minutes of
 * its time entries, optionally for one release and a workDate range (`narrow`).
 * byStatus lists every status (0 when none); byUser is ordered by minutes, then userId.
 */
export async function timeSummary(
  db: Knex,
  projectId: string,
  releaseId: string | null,
  narrow: (q: Knex.QueryBuilder) => void,
): Promise<JsonObject> {
  const q = db('time_entries').where({ projectId });
  if (releaseId) q.andWhere({ releaseId });
  narrow(q);
  const groups = (await q
    .select('userId', 'status', 'billable')
    .sum({ minutes: 'minutes' })
    .groupBy('userId', 'status', 'billable')) as { userId: string; status: string; billable: boolean; minutes: number | string }[];

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

/** A cost field that holds a plain decimal number (anything else is not counted). */
const DECIMAL = '^\\s*[+-]?[0-9]+(\\.[0-9]+)?\\s*$';

/**
 * CostSummary of a project from its entries' cost fields (docs/decisions-time.md):
 * - plannedCost: per entry mediumCost, else the midpoint of lowCost and highCost, else the one of them present;
 * - approvedCost: committedCost of entries whose costApprovalStatus is approved;
 * - pendingCost: committedCost of entries awaiting approval (pending_admin, pending_manager, pending_client);
 * - actualCost: committedCost of every entry whose cost was not rejected.
 * Each is a decimal string with 2 decimals, or null when no entry contributes. Currency: the organization's.
 */
export async function costSummary(db: Knex, organizationId: string, projectId: string): Promise<JsonObject> {
  const { rows } = (await db.raw(
    `WITH re AS (SELECT CAST(? AS text) AS num),
     e AS (
       SELECT
         CASE
           WHEN x."mediumCost" ~ re.num THEN CAST(x."mediumCost" AS numeric)
           WHEN x."lowCost" ~ re.num AND x."highCost" ~ re.num THEN (CAST(x."lowCost" AS numeric) + CAST(x."highCost" AS numeric)) / 2
           WHEN x."lowCost" ~ re.num THEN CAST(x."lowCost" AS numeric)
           WHEN x."highCost" ~ re.num THEN CAST(x."highCost" AS numeric)
         END AS planned,
         CASE WHEN x."committedCost" ~ re.num THEN CAST(x."committedCost" AS numeric) END AS committed,
         x."costApprovalStatus" AS approval
       FROM entries x CROSS JOIN re
       WHERE x."projectId" = ?
     )
     SELECT
       CAST(round(sum(planned), 2) AS text) AS "plannedCost",
       CAST(round(sum(committed) FILTER (WHERE approval IS DISTINCT FROM 'rejected'), 2) AS text) AS "actualCost",
       CAST(round(sum(committed) FILTER (WHERE approval = 'approved'), 2) AS text) AS "approvedCost",
       CAST(round(sum(committed) FILTER (WHERE approval IN ('pending_admin', 'pending_manager', 'pending_client')), 2) AS text) AS "pendingCost"
     FROM e`,
    [DECIMAL, projectId],
  )) as { rows: { plannedCost: string | null; actualCost: string | null; approvedCost: string | null; pendingCost: string | null }[] };
  const org = (await db('organizations').where({ id: organizationId }).first('currency')) as { currency?: string } | undefined;
  const [sums] = rows;
  return {
    projectId,
    currency: org?.currency || 'USD',
    plannedCost: sums.plannedCost,
    actualCost: sums.actualCost,
    approvedCost: sums.approvedCost,
    pendingCost: sums.pendingCost,
  };
}
