import type { RouteDef } from '../http/route.ts';
import { coreRoutes } from './core.ts';
import { entryRoutes } from './entries.ts';
import { releaseRoutes } from './releases.ts';
import { integrationLinkRoutes } from './integration-links.ts';
import { timeEntryRoutes } from './time-entries.ts';
import { agreementRoutes } from './agreements.ts';
import { memberRoutes } from './members.ts';
import { searchRoutes } from './search.ts';
import { snapshotRoutes } from './snapshots.ts';
import { userRoutes } from './users.ts';
import { wikiRoutes } from './wiki.ts';
import { webhookRoutes } from './webhooks.ts';

/** Every public v1 route. Feature route files register here. */
export const routes: RouteDef[] = [
  ...coreRoutes, ...entryRoutes, ...releaseRoutes, ...integrationLinkRoutes, ...timeEntryRoutes,
  ...userRoutes, ...memberRoutes, ...wikiRoutes, ...agreementRoutes, ...snapshotRoutes, ...searchRoutes,
  ...webhookRoutes,
];
