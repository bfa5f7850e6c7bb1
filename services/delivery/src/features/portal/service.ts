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
import { DomainError, notFound, presentPage, requireActor, type PageArgs, type PeriodicJobDefinition } from '@cluster/platform';
import { ActorSchema, type Actor } from '@cluster/proto';
import type { Stores } from '../../stores.ts';
import { apiWrite } from '../../shared/write.ts';
import type { PortalSessionListRow, PortalSessionRow, PortalSettingsRow } from './store.ts';

/** sha256 (hex) of a portal token: what the store keeps instead of the token. */
export const hashPortalToken = (token: string): string => createHash('sha256').update(token).digest('hex');

const SESSION_GONE = 'the portal session has expired, ended or is unknown: open a new portal link';

const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

/** A session resolved for the gateway: its actor, and what the portal's answers need. */
export interface PortalSession {
  sessionId: string;
  actor: Actor;
  access: string;
  expiresAt: string;
  frameAncestors: string[];
}

/** A live session as GET /portal-sessions shows it (PortalSession of @cluster/contracts): no hash of any token. */
function presentSession(row: PortalSessionListRow): JsonObject {
  const actor = row.actor as { scope?: string };
  return {
    id: row.id,
    apiKeyId: row.apiKeyId,
    access: row.access,
    scope: actor.scope === 'project' ? 'project' : 'organization',
    projectId: row.projectId,
    createdAt: row.createdAt.toISOString(),
    linkExpiresAt: row.linkExpiresAt.toISOString(),
    openedAt: row.openedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}

/** What the audit record of a session's end says of it: the session, and the key that minted it. */
function endedMetadata(row: PortalSessionRow): Record<string, unknown> {
  return {
    access: row.access,
    scope: (row.actor as { scope?: string }).scope ?? 'organization',
    projectId: row.projectId,
    mintedByApiKeyId: row.apiKeyId,
    opened: row.openedAt !== null,
  };
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
export function createPortalService(
  stores: Pick<Stores, 'portal' | 'transaction'>,
  ports: { audited?: () => void; clock?: () => Date } = {},
) {
  const clock = ports.clock ?? (() => new Date());
  async function resolve(row: PortalSessionRow): Promise<PortalSession> {
    return {
      sessionId: row.id,
      actor: fromJson(ActorSchema, row.actor as JsonValue),
      access: row.access,
      expiresAt: row.expiresAt!.toISOString(),
      frameAncestors: (await stores.portal.settings(row.organizationId))?.frameAncestors ?? [],
    };
  }
  /** The live session of a token; with `write`, only given its CSRF token (403). 401 for an expired, ended or unknown one. */
  async function liveSession(sessionToken: string, csrfToken: string, write: boolean): Promise<PortalSessionRow> {
    const row = sessionToken.startsWith('pts_')
      ? await stores.portal.findLive(hashPortalToken(sessionToken), clock())
      : undefined;
    if (!row) throw new DomainError('unauthorized', SESSION_GONE);
    if (write) {
      const sent = Buffer.from(hashPortalToken(csrfToken));
      if (!csrfToken || !row.csrfHash || !timingSafeEqual(sent, Buffer.from(row.csrfHash)))
        throw new DomainError('forbidden', 'a portal write needs the session’s CSRF token (header X-Portal-CSRF)');
    }
    return row;
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

    /** The live session of a token; a write needs its CSRF token too (403 without it). 401 for an expired, ended or unknown session. */
    async authenticate(sessionToken: string, csrfToken: string, write: boolean): Promise<PortalSession> {
      return resolve(await liveSession(sessionToken, csrfToken, write));
    },

    /** The organization's live sessions (GET /portal-sessions): unopened links still openable, opened sessions unexpired. */
    async list(actorIn: Actor | undefined, page: PageArgs) {
      const actor = requireActor(actorIn);
      return presentPage(await stores.portal.listLive(actor.organizationId, clock(), page), presentSession);
    },

    /**
     * Ends a live session of the key's organization now (DELETE /portal-sessions/:id), audited as
     * `portal_session` `revoked`. 404 when no session of that id is live (docs/portal.md, "Ending a
     * session"): ended already, expired, unknown, or another organization's alike.
     */
    async revoke(actorIn: Actor | undefined, id: string): Promise<void> {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = await tx.portal.end(actor.organizationId, id, clock());
        if (!row) throw notFound('portal session');
        await tx.record(
          apiWrite(actor, { entityType: 'portal_session', action: 'revoked', entityId: row.id, metadata: endedMetadata(row) }),
        );
      });
      ports.audited?.();
    },

    /**
     * The portal's sign-out (POST /portal/logout): ends the session of a token now, given its CSRF token
     * (403 without it), audited as `portal_session` `signed_out` for the session's actor (the minting key's,
     * naming the session). 401 when the session is not live.
     */
    async end(sessionToken: string, csrfToken: string): Promise<{ sessionId: string }> {
      const session = await liveSession(sessionToken, csrfToken, true);
      await stores.transaction(async (tx) => {
        const row = await tx.portal.end(session.organizationId, session.id, clock());
        if (!row) throw new DomainError('unauthorized', SESSION_GONE);
        const actor = create(ActorSchema, { ...fromJson(ActorSchema, row.actor as JsonValue), portalSessionId: row.id });
        await tx.record(
          apiWrite(actor, { entityType: 'portal_session', action: 'signed_out', entityId: row.id, metadata: endedMetadata(row) }),
        );
      });
      ports.audited?.();
      return { sessionId: session.id };
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
