import type { Knex } from '@cluster/db';
import { packageDigest, type ChainLink } from './build.ts';

/** A row of evidence_packages as stored (migration 002). */
type PackageRow = {
  releaseId: string;
  sequence: number;
  organizationId: string;
  /** The digest of its facts: a new package only when they change. */
  factsSha256: string;
  /** The SHA-256 of its bytes: what the next package's previousSha256 names. */
  sha256: string;
  package: Buffer;
  createdAt: Date;
};

/** The packages issued for each release, in order (schema evidence, table evidence_packages). */
export interface PackageStore {
  /**
   * The release's current package: the latest one when its facts' digest is `factsSha256`, or
   * else a new one, made by `build` with the next link of the chain and stored. One issue of a
   * release at a time, so the chain has no fork and no gap.
   */
  issue(
    release: { releaseId: string; organizationId: string; factsSha256: string },
    build: (link: ChainLink) => Buffer,
  ): Promise<Buffer>;
  /** The release's package number `sequence`, exactly as issued; undefined when there is none. */
  find(release: { releaseId: string; organizationId: string }, sequence: number): Promise<Buffer | undefined>;
  /** The release's newest package: its number and the SHA-256 of its bytes; undefined before the first. */
  head(release: { releaseId: string; organizationId: string }): Promise<PackageHead | undefined>;
}

/** Where a release's chain ends: what its signed head statement names (docs/evidence.md, "The head"). */
export interface PackageHead {
  sequence: number;
  sha256: string;
}

export function createPackageStore(db: Knex): PackageStore {
  return {
    async issue({ releaseId, organizationId, factsSha256 }, build) {
      return db.transaction(async (trx) => {
        await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`evidence-package:${releaseId}`]);
        const latest = await trx<PackageRow>('evidence_packages')
          .where({ releaseId })
          .orderBy('sequence', 'desc')
          .first('sequence', 'factsSha256', 'sha256', 'package');
        if (latest?.factsSha256 === factsSha256) return latest.package;
        const bytes = build({ sequence: (latest?.sequence ?? 0) + 1, previousSha256: latest?.sha256 ?? null });
        await trx<PackageRow>('evidence_packages').insert({
          releaseId,
          organizationId,
          sequence: (latest?.sequence ?? 0) + 1,
          factsSha256,
          sha256: packageDigest(bytes),
          package: bytes,
        });
        return bytes;
      });
    },
    async find({ releaseId, organizationId }, sequence) {
      const row = await db<PackageRow>('evidence_packages').where({ releaseId, organizationId, sequence }).first('package');
      return row?.package;
    },
    async head({ releaseId, organizationId }) {
      return db<PackageRow>('evidence_packages')
        .where({ releaseId, organizationId })
        .orderBy('sequence', 'desc')
        .first('sequence', 'sha256');
    },
  };
}
