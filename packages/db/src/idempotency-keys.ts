import type { Knex } from 'knex';

/**
 * Idempotency-Key records of one service's schema (docs/decisions-api.md, "How a key holds under
 * every fault"): one row per (API key, Idempotency-Key), written by the transaction that makes the
 * call's write, kept 24 hours. All SQL of the feature; the rules are the call interceptor's
 * (packages/platform/src/idempotent-calls.ts).
 */

/** What identifies a call under a key, and what a repeat must match. */
export interface KeyedCall {
  apiKeyId: string;
  key: string;
  /** SHA-256 of the HTTP method, path and body, as the gateway computed it. */
  fingerprint: string;
  /** `Service/Method` of the backend operation. */
  operation: string;
}

/** How a call under a key ended: its answer (the RPC's response, encoded), or a refusal (the error, as JSON). */
export type Outcome = 'answer' | 'refusal';

/** A committed record of an earlier call under the same key. */
export interface KeyRecord {
  fingerprint: string;
  operation: string;
  outcome: Outcome;
  /** The answer's encoding: base64 protobuf bytes (maybe sealed), or the refusal's JSON. */
  answer: string;
}

export const IDEMPOTENCY_TABLE = 'idempotency_records';
/** How long a record is replayed. */
export const KEY_TTL = '24 hours';

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The table of a schema (call from that schema's migration). */
export async function createIdempotencyKeysTable(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).createTable(IDEMPOTENCY_TABLE, (t) => {
    t.uuid('apiKeyId').notNullable();
    t.text('key').notNullable();
    t.text('fingerprint').notNullable();
    t.text('operation').notNullable();
    // NULL only inside the transaction that claimed the key: a committed row always has its outcome.
    t.text('outcome');
    t.text('answer');
    t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expiresAt', { useTz: true }).notNullable();
    t.primary(['apiKeyId', 'key']);
    t.index(['expiresAt']);
  });
}

/** The SQL of one schema's records, built once per service. */
export function idempotencyKeys(schema: string) {
  const table = `${ident(schema)}.${ident(IDEMPOTENCY_TABLE)}`;
  const prepared = (what: string) => ({ name: `idempotency-${what}-${schema}-v1` });
  const claimSql = `INSERT INTO ${table} ("apiKeyId", key, fingerprint, operation, "expiresAt")
    VALUES (?, ?, ?, ?, now() + interval '${KEY_TTL}')
    ON CONFLICT ("apiKeyId", key) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, operation = EXCLUDED.operation, outcome = NULL, answer = NULL,
          "createdAt" = now(), "expiresAt" = EXCLUDED."expiresAt"
      WHERE ${table}."expiresAt" < now()
    RETURNING 1 AS claimed`;
  return {
    /**
     * Takes the key for `call` in `trx`, unless a record of it is committed and unexpired: then
     * that record. A copy of the call in flight holds the key's row until it commits or rolls
     * back; this waits for it (bounded by the transaction's lock_timeout). An expired record is
     * taken over.
     */
    async claim(trx: Knex.Transaction, call: KeyedCall): Promise<KeyRecord | undefined> {
      for (;;) {
        const claimed = await trx
          .raw<{ rows: unknown[] }>(claimSql, [call.apiKeyId, call.key, call.fingerprint, call.operation])
          .options(prepared('claim'));
        if (claimed.rows.length) return undefined;
        // Conflicted with a committed, unexpired row: this statement's snapshot (READ COMMITTED) sees it,
        // unless a sweep removed it in between (then the key is free again).
        const found = await trx
          .raw<{ rows: KeyRecord[] }>(
            `SELECT fingerprint, operation, outcome, answer FROM ${table} WHERE "apiKeyId" = ? AND key = ?`,
            [call.apiKeyId, call.key],
          )
          .options(prepared('find'));
        if (found.rows[0]) return found.rows[0];
      }
    },
    /** Records the outcome of the call that claimed the key, in its transaction. */
    async settle(trx: Knex.Transaction, call: KeyedCall, outcome: Outcome, answer: string): Promise<void> {
      await trx
        .raw(`UPDATE ${table} SET outcome = ?, answer = ? WHERE "apiKeyId" = ? AND key = ?`, [
          outcome,
          answer,
          call.apiKeyId,
          call.key,
        ])
        .options(prepared('settle'));
    },
    /**
     * Records a refusal after the call's transaction rolled back (nothing of it was written), unless
     * another copy of the call has taken the key meanwhile.
     */
    async recordRefusal(db: Knex, call: KeyedCall, answer: string): Promise<void> {
      await db.raw(
        `INSERT INTO ${table} ("apiKeyId", key, fingerprint, operation, outcome, answer, "expiresAt")
         VALUES (?, ?, ?, ?, 'refusal', ?, now() + interval '${KEY_TTL}')
         ON CONFLICT ("apiKeyId", key) DO NOTHING`,
        [call.apiKeyId, call.key, call.fingerprint, call.operation, answer],
      );
    },
    /** Deletes expired records, `batch` at a time; how many. */
    async sweep(db: Knex, batch = 5000): Promise<number> {
      let total = 0;
      for (;;) {
        const { rowCount } = await db.raw<{ rowCount: number }>(
          `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE "expiresAt" < now() LIMIT ?)`,
          [batch],
        );
        total += rowCount;
        if (rowCount < batch) return total;
      }
    },
  };
}

export type IdempotencyKeys = ReturnType<typeof idempotencyKeys>;
