import type { Knex, Migration } from '@cluster/db';
import { createOutboxTable } from '@cluster/outbox';

/**
 * Subscriptions (secret sealed at rest), deliveries (one per event and
 * subscription, with the retry schedule and lease that replicas share), the
 * attempt log, the test-call counter and the delivery service's outbox.
 */
export const deliverySchema: Migration = {
  name: '001-delivery',
  async up(knex: Knex) {
    await knex.raw('CREATE EXTENSION IF NOT EXISTS pgcrypto').catch(() => {});
    await knex.schema.withSchema('delivery').createTable('subscriptions', (t) => {
      t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      t.uuid('organizationId').notNullable();
      t.text('destinationUrl').notNullable();
      // scheme://host:port, the unit of the per-destination concurrency bound.
      t.text('destinationOrigin').notNullable();
      t.specificType('eventNames', 'text[]').notNullable();
      t.boolean('enabled').notNullable().defaultTo(true);
      t.text('description');
      // AES-256-GCM sealed signing secret (shared/webhook-secret-box.ts); never returned after create/rotate.
      t.text('secretSealed').notNullable();
      t.uuid('createdByUserId');
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('deletedAt', { useTz: true });
      t.index(['organizationId', 'createdAt', 'id']);
    });
    await knex.raw(
      'CREATE INDEX subscriptions_event_names ON delivery.subscriptions USING gin ("eventNames") WHERE enabled AND "deletedAt" IS NULL',
    );

    await knex.schema.withSchema('delivery').createTable('deliveries', (t) => {
      // Also the envelope id and X-Service-Delivery-Id, the same on every attempt.
      t.uuid('id').primary();
      t.uuid('organizationId').notNullable();
      t.uuid('subscriptionId').notNullable().references('id').inTable('delivery.subscriptions').onDelete('CASCADE');
      // The domain event's id (null for a test delivery, which has no domain event).
      t.uuid('eventId');
      t.text('eventName').notNullable();
      // The request body, serialised once at fan-out; every attempt signs and sends these bytes.
      t.text('body').notNullable();
      t.text('status').notNullable().defaultTo('pending');
      t.integer('attempts').notNullable().defaultTo(0);
      t.integer('responseCode');
      t.text('responseBody');
      t.text('error');
      t.integer('durationMs');
      // When the next attempt is due; null when no attempt is scheduled (succeeded, dead_letter, stopped).
      t.timestamp('nextAttemptAt', { useTz: true });
      t.timestamp('firstAttemptAt', { useTz: true });
      t.timestamp('lastAttemptAt', { useTz: true });
      // Lease of the replica that is sending it now; an expired lease may be taken over.
      t.timestamp('lockedUntil', { useTz: true });
      t.uuid('leaseToken');
      t.boolean('test').notNullable().defaultTo(false);
      t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updatedAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.unique(['eventId', 'subscriptionId']);
      t.index(['subscriptionId', 'createdAt', 'id']);
    });
    await knex.raw('CREATE INDEX deliveries_due ON delivery.deliveries ("nextAttemptAt") WHERE "nextAttemptAt" IS NOT NULL');

    await knex.schema.withSchema('delivery').createTable('attempts', (t) => {
      t.bigIncrements('seq').primary();
      t.uuid('deliveryId').notNullable().references('id').inTable('delivery.deliveries').onDelete('CASCADE');
      t.integer('attempt').notNullable();
      t.text('outcome').notNullable();
      t.integer('responseCode');
      t.text('responseBody');
      t.text('error');
      t.integer('durationMs').notNullable();
      t.timestamp('attemptedAt', { useTz: true }).notNullable();
      t.unique(['deliveryId', 'attempt']);
    });

    await knex.schema.withSchema('delivery').createTable('test_calls', (t) => {
      t.bigIncrements('seq').primary();
      t.uuid('organizationId').notNullable();
      t.timestamp('calledAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['organizationId', 'calledAt']);
    });

    await createOutboxTable(knex, 'delivery');
  },
};
