import type { Knex } from '@cluster/db';

/** An organization's current evidence key, sealed. */
export interface EvidenceKeyRow {
  prefix: string;
  sealedKey: string;
}

/** Evidence keys in Postgres (schema evidence). */
export interface EvidenceKeyStore {
  current(organizationId: string): Promise<EvidenceKeyRow | undefined>;
  /**
   * Revokes the current key (if any) and stores the new one, in one transaction, one rotation of
   * an organization at a time. Answers the prefix of the key it revoked, if there was one.
   */
  replace(organizationId: string, key: EvidenceKeyRow): Promise<string | undefined>;
}

export function createEvidenceKeyStore(db: Knex): EvidenceKeyStore {
  return {
    async current(organizationId) {
      const row: EvidenceKeyRow | undefined = await db('evidence_keys')
        .where({ organizationId })
        .whereNull('revokedAt')
        .first('prefix', 'sealedKey');
      return row;
    },
    async replace(organizationId, key) {
      return db.transaction(async (trx) => {
        // Rotations of one organization take turns: two at once would each revoke the old key and
        // both insert a current one (the unique index would refuse the second: a 500).
        await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`evidence-key:${organizationId}`]);
        const revoked: { prefix: string }[] = await trx('evidence_keys')
          .where({ organizationId })
          .whereNull('revokedAt')
          .update({ revokedAt: trx.fn.now() }, ['prefix']);
        await trx('evidence_keys').insert({ organizationId, ...key });
        return revoked[0]?.prefix;
      });
    },
  };
}
