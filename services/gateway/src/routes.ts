import type { RouteDef } from './http/route.ts';
import { agreementRoutes } from './features/agreements/routes.ts';
import { attachmentRoutes } from './features/attachments/routes.ts';
import { auditEventRoutes } from './features/audit-events/routes.ts';
import { commentRoutes } from './features/comments/routes.ts';
import { entryRoutes } from './features/entries/routes.ts';
import { evidenceRoutes } from './features/evidence/routes.ts';
import { integrationLinkRoutes } from './features/integration-links/routes.ts';
import { meRoutes } from './features/me/routes.ts';
import { memberRoutes } from './features/members/routes.ts';
import { projectRoutes } from './features/projects/routes.ts';
import { releaseRoutes } from './features/releases/routes.ts';
import { searchRoutes } from './features/search/routes.ts';
import { snapshotRoutes } from './features/snapshots/routes.ts';
import { timeEntryRoutes } from './features/time-entries/routes.ts';
import { userRoutes } from './features/users/routes.ts';
import { webhookRoutes } from './features/webhooks/routes.ts';
import { wikiRoutes } from './features/wiki/routes.ts';

/**
 * Every public v1 route: the one table that authentication, permissions, validation and
 * the OpenAPI document read. Each feature's `features/<resource>/routes.ts` registers here;
 * the order is the order of the OpenAPI paths and of the `Allow` header.
 */
export const routes: readonly RouteDef[] = [
  ...meRoutes,
  ...projectRoutes,
  ...auditEventRoutes,
  ...entryRoutes,
  ...commentRoutes,
  ...attachmentRoutes,
  ...releaseRoutes,
  ...evidenceRoutes,
  ...integrationLinkRoutes,
  ...timeEntryRoutes,
  ...userRoutes,
  ...memberRoutes,
  ...wikiRoutes,
  ...agreementRoutes,
  ...snapshotRoutes,
  ...searchRoutes,
  ...webhookRoutes,
];
