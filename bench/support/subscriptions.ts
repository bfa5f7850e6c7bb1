import type { Knex } from '@cluster/db';

/** Inserts `count` subscriptions of `organizationId` to entry.created, each at its own origin (r<i>.example.test); their ids. */
export async function seedSubscriptions(db: Knex, organizationId: string, count: number): Promise<string[]> {
  const rows: { id: string }[] = await db('delivery.subscriptions')
    .insert(
      Array.from({ length: count }, (_, i) => ({
        organizationId,
        destinationUrl: `http://r${i}.example.test/w`,
        destinationOrigin: `http://r${i}.example.test`,
        eventNames: ['entry.created'],
        secretSealed: 'x',
      })),
    )
    .returning('id');
  return rows.map((r) => r.id);
}
