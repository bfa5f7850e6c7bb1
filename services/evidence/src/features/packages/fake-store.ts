import { packageDigest } from './build.ts';
import type { PackageStore } from './store.ts';

/** A package as the fake keeps it (the columns of evidence_packages that its reads need). */
export interface FakePackage {
  releaseId: string;
  organizationId: string;
  sequence: number;
  factsSha256: string;
  sha256: string;
  package: Buffer;
}

/**
 * PackageStore in memory, for unit tests. An issue reads the latest package and stores the next one
 * with no await between them, so one issue of a release runs at a time as the advisory lock makes it.
 */
export function createFakePackageStore(): PackageStore & { rows: FakePackage[] } {
  const rows: FakePackage[] = [];
  return {
    rows,
    async issue({ releaseId, organizationId, factsSha256 }, build) {
      const latest = rows.filter((r) => r.releaseId === releaseId).sort((a, b) => b.sequence - a.sequence)[0];
      if (latest?.factsSha256 === factsSha256) return latest.package;
      const sequence = (latest?.sequence ?? 0) + 1;
      const bytes = build({ sequence, previousSha256: latest?.sha256 ?? null });
      rows.push({ releaseId, organizationId, sequence, factsSha256, sha256: packageDigest(bytes), package: bytes });
      return bytes;
    },
    async find({ releaseId, organizationId }, sequence) {
      return rows.find((r) => r.releaseId === releaseId && r.organizationId === organizationId && r.sequence === sequence)
        ?.package;
    },
    async head({ releaseId, organizationId }) {
      const latest = rows
        .filter((r) => r.releaseId === releaseId && r.organizationId === organizationId)
        .sort((a, b) => b.sequence - a.sequence)[0];
      return latest && { sequence: latest.sequence, sha256: latest.sha256 };
    },
  };
}
