import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { PortalSessionCreateBody, PortalSettingsUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import { PortalSessionResponseSchema, type PortalService as PortalRpc } from '@cluster/proto';
import type { PortalService, PortalSession } from './service.ts';

const answer = (s: PortalSession, tokens: { sessionToken?: string; csrfToken?: string } = {}) =>
  create(PortalSessionResponseSchema, {
    sessionId: s.sessionId,
    actor: s.actor,
    access: s.access,
    expiresAt: s.expiresAt,
    frameAncestors: s.frameAncestors,
    ...tokens,
  });

/** PortalService over Connect: unpacks requests, calls the rules, packs answers. */
export function portalRpc(portal: PortalService): ServiceImpl<typeof PortalRpc> {
  return {
    async createPortalSession(req) {
      return { resource: jsonBytes(await portal.create(req.actor, bodyOf<PortalSessionCreateBody>(req.body))), created: true };
    },
    async listPortalSessions(req) {
      return jsonPage(await portal.list(req.actor, pageArgs(req)));
    },
    async revokePortalSession(req) {
      await portal.revoke(req.actor, req.id);
      return {};
    },
    async endPortalSession(req) {
      return portal.end(req.sessionToken, req.csrfToken);
    },
    async getPortalSettings(req) {
      return { resource: jsonBytes(await portal.settings(req.actor)) };
    },
    async updatePortalSettings(req) {
      return { resource: jsonBytes(await portal.updateSettings(req.actor, bodyOf<PortalSettingsUpdateBody>(req.body))) };
    },
    async openPortalSession(req) {
      const s = await portal.open(req.linkToken);
      return answer(s, { sessionToken: s.sessionToken, csrfToken: s.csrfToken });
    },
    async authenticatePortalSession(req) {
      return answer(await portal.authenticate(req.sessionToken, req.csrfToken, req.write));
    },
  };
}
