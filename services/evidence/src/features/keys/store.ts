import type { Knex } from '@cluster/db';

/** Evidence keys in Postgres (schema evidence), sealed. */
export interface EvidenceKeyStore {
  /** The organization's current key, sealed; undefined without one. */
  current(organizationId: string): Promise<string | undefined>;
  /**
   * Revokes the current key (if any) and stores the new one, in one transaction, one rotation of
   * an organization at a time. Answers the key it revoked, sealed, if there was one.
   */
  replace(organizationId: string, sealedKey: string): Promise<string | undefined>;
}

/** A row of evidence_keys as stored (migrations 001, 003: the prefix is no longer kept). */
export type EvidenceKeyRow = {
  id: string;
  organizationId: string;
  prefix: string | null;
  /** The key, sealed (box.ts). */
  sealedKey: string;
  createdAt: Date;
  revokedAt: Date | null;
};

/** The knex implementation of EvidenceKeyStore. */
export function createEvidenceKeyStore(db: Knex): EvidenceKeyStore {
  return {
    async current(organizationId) {
      const row = await db<EvidenceKeyRow>('evidence_keys').where({ organizationId }).whereNull('revokedAt').first('sealedKey');
      return row?.sealedKey;
    },
    async replace(organizationId, sealedKey) {
      return db.transaction(async (trx) => {
        // Rotations of one organization take turns: two at once would each revoke the old key and
        // both insert a current one (the unique index would refuse the second: a 500).
        await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`evidence-key:${organizationId}`]);
        const revoked = await trx<EvidenceKeyRow>('evidence_keys')
          .where({ organizationId })
          .whereNull('revokedAt')
          .update({ revokedAt: trx.fn.now() }, ['sealedKey']);
        await trx<EvidenceKeyRow>('evidence_keys').insert({ organizationId, sealedKey });
        return revoked[0]?.sealedKey;
      });
    },
  };
}
