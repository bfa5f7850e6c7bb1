import type { Migration } from '@cluster/db';
import { spine } from './001-spine.ts';
import { workItems } from './002-work-items.ts';
import { entriesExtras } from './003-entries-extras.ts';
import { peopleAndPages } from './004-people-and-pages.ts';
import { timeEntries } from './005-time-entries.ts';
import { outboxHeaders } from './006-outbox-headers.ts';
import { searchDocumentBounds } from './007-search-document-bounds.ts';
import { codehost } from './008-codehost.ts';
import { codehostReplay } from './009-codehost-replay.ts';
import { idempotentWrites } from './010-idempotent-writes.ts';
import { outboxSlots } from './011-outbox-slots.ts';
import { oauth } from './012-oauth.ts';

/** Every migration of the core schema, in order. Append; never edit a released one. */
export const migrations: Migration[] = [
  spine,
  workItems,
  entriesExtras,
  peopleAndPages,
  timeEntries,
  outboxHeaders,
  searchDocumentBounds,
  codehost,
  codehostReplay,
  idempotentWrites,
  outboxSlots,
  oauth,
];
