import type { ActorEvent } from '../../shared/write.ts';
import type { EntryRow } from '../entries/store.ts';
import type { CommentRow } from './store.ts';

/** entry.commented: an event of the entry (the webhook vocabulary has no comment events). */
export function entryCommentedEvent(entry: EntryRow, row: CommentRow): ActorEvent {
  return {
    eventName: 'entry.commented',
    entityType: 'entry',
    entityId: entry.id,
    projectId: row.projectId,
    payload: {
      entryId: entry.id,
      projectId: entry.projectId,
      title: entry.title,
      type: entry.type,
      status: entry.status,
      commentId: row.id,
      authorId: row.authorId,
      body: row.body,
      isInternal: row.isInternal,
    },
  };
}
