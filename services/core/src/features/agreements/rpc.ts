import type { ServiceImpl } from '@connectrpc/connect';
import { jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { AgreementService } from '@cluster/proto';
import type { createAgreementService } from './service.ts';

/** AgreementService over Connect (reads only): unpacks requests, calls the rules, packs answers. */
export function agreementRpc(agreements: ReturnType<typeof createAgreementService>): ServiceImpl<typeof AgreementService> {
  return {
    async listAgreements(req) {
      return jsonPage(await agreements.list(req.actor, req.parentId, pageArgs(req)));
    },
    async getAgreement(req) {
      return { resource: jsonBytes(await agreements.get(req.actor, req.id)) };
    },
  };
}
