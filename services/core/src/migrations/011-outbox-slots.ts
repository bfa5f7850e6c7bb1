import type { Knex, Migration } from '@cluster/db';
import { addOutboxSlots } from '@cluster/outbox';

/**
 * Relay slots of the core's outbox (docs/decisions.md, "Transactional outbox"): a slot per row, the
 * slot count, the relays and their lease rows. Expand-only: a core of the release before keeps
 * writing (its rows land in slot 0) and relaying during the roll.
 */
export const outboxSlots: Migration = {
  name: '011-outbox-slots',
  async up(knex: Knex) {
    await addOutboxSlots(knex, 'core');
  },
};
