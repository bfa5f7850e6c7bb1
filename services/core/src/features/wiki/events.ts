import type { EmittedEventName } from '@cluster/contracts';
import type { ActorEvent } from '../../shared/write.ts';
import type { WikiPageRow } from './store.ts';

/** wiki_page.created / .updated / .deleted. */
export function wikiPageEvent(eventName: EmittedEventName, row: WikiPageRow, extra: Record<string, unknown> = {}): ActorEvent {
  return {
    eventName,
    entityType: 'wiki_page',
    entityId: row.id,
    projectId: row.projectId,
    payload: { wikiPageId: row.id, projectId: row.projectId, organizationId: row.organizationId, title: row.title, ...extra },
  };
}
