import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { create, fromJson, toJson, type JsonObject, type JsonValue } from '@bufbuild/protobuf';
import {
  PORTAL_LINK_TTL_SECONDS,
  PORTAL_PERMISSIONS,
  PORTAL_SESSION_DEFAULT_SECONDS,
  type PortalAccess,
  type PortalSessionCreateBody,
  type PortalSettingsUpdateBody,
} from '@cluster/contracts';
import { DomainError, requireActor, type PeriodicJobDefinition } from '@cluster/platform';
import { ActorSchema, type Actor } from '@cluster/proto';
import type { Stores } from '../../stores.ts';
import { apiWrite } from '../../shared/write.ts';
import type { PortalSessionRow, PortalSettingsRow } from './store.ts';

/** sha256 (hex) of a portal token: what the store keeps instead of the token. */
export const hashPortalToken = (token: string): string => createHash('sha256').update(token).digest('hex');

const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

/** A session resolved for the gateway: its actor, and what the portal's answers need. */
export interface PortalSession {
  sessionId: string;
  actor: Actor;
  access: string;
  expiresAt: string;
  frameAncestors: string[];
}

function presentSettings(row: PortalSettingsRow | undefined): JsonObject {
  return { frameAncestors: row?.frameAncestors ?? [], updatedAt: row?.updatedAt.toISOString() ?? null };
}

/**
 * The portal's sessions (docs/portal.md): a key mints a one-time link, the link opens once into a
 * session of its lifetime, and the session's token (a cookie the gateway holds for the browser)
 * resolves to the minting key's actor narrowed to the session's access and scope. Writes need the
 * session's CSRF token too. Rules only; SQL is in the store.
 */
export function createPortalService(stores: Pick<Stores, 'portal' | 'transaction'>, ports: { audited?: () => void } = {}) {
  const clock = () => new Date();
  async function resolve(row: PortalSessionRow): Promise<PortalSession> {
    return {
      sessionId: row.id,
      actor: fromJson(ActorSchema, row.actor as JsonValue),
      access: row.access,
      expiresAt: row.expiresAt!.toISOString(),
      frameAncestors: (await stores.portal.settings(row.organizationId))?.frameAncestors ?? [],
    };
  }
  return {
    /** A new one-time link for the key's actor, narrowed to `access` (default manage) and, with `projectId`, one project. */
    async create(actorIn: Actor | undefined, body: PortalSessionCreateBody): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const access: PortalAccess = body.access ?? 'manage';
      const permissions = PORTAL_PERMISSIONS[access].filter((p) => actor.permissions.includes(p));
      const projectId = body.projectId ?? null;
      const sessionActor = create(ActorSchema, {
        apiKeyId: actor.apiKeyId,
        organizationId: actor.organizationId,
        userId: actor.userId,
        role: actor.role,
        scope: projectId ? 'project' : actor.scope,
        ...(projectId ? { scopedProjectId: projectId } : actor.scopedProjectId ? { scopedProjectId: actor.scopedProjectId } : {}),
        permissions,
      });
      const token = newToken('ptl_');
      const id = randomUUID();
      const lifetimeSeconds = body.lifetimeSeconds ?? PORTAL_SESSION_DEFAULT_SECONDS;
      const linkExpiresAt = new Date(clock().getTime() + PORTAL_LINK_TTL_SECONDS * 1000);
      await stores.transaction(async (tx) => {
        await tx.portal.insert({
          id,
          organizationId: actor.organizationId,
          apiKeyId: actor.apiKeyId,
          actor: toJson(ActorSchema, sessionActor) as Record<string, unknown>,
          access,
          projectId,
          lifetimeSeconds,
          linkHash: hashPortalToken(token),
          linkExpiresAt,
        });
        await tx.record(
          apiWrite(actor, {
            entityType: 'portal_session',
            action: 'created',
            entityId: id,
            metadata: { access, scope: sessionActor.scope, projectId, lifetimeSeconds, permissions },
          }),
        );
      });
      ports.audited?.();
      return {
        id,
        url: `/portal/start?token=${token}`,
        linkExpiresAt: linkExpiresAt.toISOString(),
        access,
        scope: sessionActor.scope,
        projectId,
        lifetimeSeconds,
      };
    },

    /** Opens a link's session, once: its tokens (shown this once) and actor. 401 for a used, expired or unknown link. */
    async open(linkToken: string): Promise<PortalSession & { sessionToken: string; csrfToken: string }> {
      const sessionToken = newToken('pts_');
      const csrfToken = newToken('ptc_');
      const row = linkToken.startsWith('ptl_')
        ? await stores.portal.open(hashPortalToken(linkToken), hashPortalToken(sessionToken), hashPortalToken(csrfToken), clock())
        : undefined;
      if (!row) throw new DomainError('unauthorized', 'this portal link was used already or has expired: ask for a new one');
      return { ...(await resolve(row)), sessionToken, csrfToken };
    },

    /** The live session of a token; a write needs its CSRF token too (403 without it). 401 for an expired or unknown session. */
    async authenticate(sessionToken: string, csrfToken: string, write: boolean): Promise<PortalSession> {
      const row = sessionToken.startsWith('pts_')
        ? await stores.portal.findLive(hashPortalToken(sessionToken), clock())
        : undefined;
      if (!row) throw new DomainError('unauthorized', 'the portal session has expired or is unknown: open a new portal link');
      if (write) {
        const sent = Buffer.from(hashPortalToken(csrfToken));
        if (!csrfToken || !row.csrfHash || !timingSafeEqual(sent, Buffer.from(row.csrfHash)))
          throw new DomainError('forbidden', 'a portal write needs the session’s CSRF token (header X-Portal-CSRF)');
      }
      return resolve(row);
    },

    async settings(actorIn: Actor | undefined): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      return presentSettings(await stores.portal.settings(actor.organizationId));
    },

    async updateSettings(actorIn: Actor | undefined, body: PortalSettingsUpdateBody): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const row = await stores.transaction(async (tx) => {
        const saved = await tx.portal.saveSettings(actor.organizationId, body.frameAncestors);
        await tx.record(
          apiWrite(actor, {
            entityType: 'portal_settings',
            action: 'updated',
            entityId: actor.organizationId,
            metadata: { frameAncestors: body.frameAncestors },
          }),
        );
        return saved;
      });
      ports.audited?.();
      return presentSettings(row);
    },

    /** Forgets sessions whose link and session expired before `before` (the periodic job). */
    deleteExpired: (before: Date) => stores.portal.deleteExpired(before),
  };
}
export type PortalService = ReturnType<typeof createPortalService>;

/** Forgets portal sessions whose link and session both expired more than a day ago (docs/portal.md). */
export function portalSweepJob(portal: Pick<PortalService, 'deleteExpired'>, intervalMs: number): PeriodicJobDefinition {
  return {
    name: 'portal_sweep',
    what: 'removal of expired portal sessions',
    intervalMs,
    run: async () => void (await portal.deleteExpired(new Date(Date.now() - 86_400_000))),
  };
}
