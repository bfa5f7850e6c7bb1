import { agreementOperations } from './agreements.ts';
import { attachmentOperations } from './attachments.ts';
import { auditEventOperations } from './audit-events.ts';
import { commentOperations } from './comments.ts';
import { entryOperations } from './entries.ts';
import { evidenceOperations } from './evidence.ts';
import { integrationLinkOperations } from './integration-links.ts';
import { meOperations } from './me.ts';
import { memberOperations } from './members.ts';
import type { Operation } from './operation.ts';
import { portalOperations } from './portal.ts';
import { projectOperations } from './projects.ts';
import { releaseOperations } from './releases.ts';
import { searchOperations } from './search.ts';
import { snapshotOperations } from './snapshots.ts';
import { timeEntryOperations } from './time-entries.ts';
import { userOperations } from './users.ts';
import { webhookOperations } from './webhooks.ts';
import { wikiOperations } from './wiki.ts';

export type { Operation, ToolExposure } from './operation.ts';

/**
 * Every public v1 operation, the one declaration that the gateway (router, authorization,
 * validation, MCP tools, OpenAPI document) and each backend (the rules it enforces again on the
 * RPCs the gateway calls) read at run time. Each resource's `operations/<resource>.ts` registers
 * here; the order is the order of the OpenAPI paths and of the `Allow` header, and the first
 * matching path wins (a fixed segment such as `/webhooks/event-types` precedes `/webhooks/:id`).
 */
export const OPERATIONS: readonly Operation[] = [
  ...meOperations,
  ...projectOperations,
  ...auditEventOperations,
  ...entryOperations,
  ...commentOperations,
  ...attachmentOperations,
  ...releaseOperations,
  ...evidenceOperations,
  ...integrationLinkOperations,
  ...timeEntryOperations,
  ...userOperations,
  ...memberOperations,
  ...wikiOperations,
  ...agreementOperations,
  ...snapshotOperations,
  ...searchOperations,
  ...webhookOperations,
  ...portalOperations,
];
