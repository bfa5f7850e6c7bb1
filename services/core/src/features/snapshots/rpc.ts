import type { ServiceImpl } from '@connectrpc/connect';
import { jsonPage, pageArgs } from '@cluster/platform';
import type { SnapshotService } from '@cluster/proto';
import type { createSnapshotService } from './service.ts';

/** SnapshotService over Connect (the list only): unpacks requests, calls the rules, packs answers. */
export function snapshotRpc(snapshots: ReturnType<typeof createSnapshotService>): ServiceImpl<typeof SnapshotService> {
  return {
    async listSnapshots(req) {
      return jsonPage(await snapshots.list(req.actor, req.parentId, pageArgs(req)));
    },
  };
}
