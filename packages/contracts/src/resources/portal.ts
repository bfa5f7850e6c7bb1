import { Type, type Static } from '@sinclair/typebox';
import type { Permission } from '../permissions.ts';
import { Body, DateTime, Nullable, StringEnum, Uuid, YEAR_PATTERN } from './common.ts';

/**
 * The integrator portal's sessions (docs/portal.md): minted with an API key as a one-time link,
 * opened in a browser into a cookie session of limited lifetime, scope and access.
 */
export const PORTAL_ACCESS = ['read-only', 'manage'] as const;
export type PortalAccess = (typeof PORTAL_ACCESS)[number];

/** What each access level may do, narrowed further to what the minting key holds. */
export const PORTAL_PERMISSIONS: Readonly<Record<PortalAccess, readonly Permission[]>> = {
  'read-only': ['read:webhook'],
  manage: ['read:webhook', 'write:webhook', 'delete:webhook'],
};

/** How long a one-time link may be opened after it was minted. */
export const PORTAL_LINK_TTL_SECONDS = 600;
/** The session's lifetime once opened: bounds and default. */
export const PORTAL_SESSION_MIN_SECONDS = 5;
export const PORTAL_SESSION_MAX_SECONDS = 86_400;
export const PORTAL_SESSION_DEFAULT_SECONDS = 3_600;

export const PortalSessionCreate = Body(
  {
    access: StringEnum(PORTAL_ACCESS, { description: 'read-only: look only; manage: change endpoints, resend (default)' }),
    projectId: Uuid,
    lifetimeSeconds: Type.Integer({
      minimum: PORTAL_SESSION_MIN_SECONDS,
      maximum: PORTAL_SESSION_MAX_SECONDS,
      description: `how long the session lives once the link is opened (default ${PORTAL_SESSION_DEFAULT_SECONDS})`,
    }),
  },
  { description: 'Without projectId the session is for the organization; with one, for that project only.' },
);
export type PortalSessionCreateBody = Static<typeof PortalSessionCreate>;

export const PortalSessionLink = Type.Object(
  {
    id: Uuid,
    url: Type.String({ description: 'the one-time link, a path on this gateway: /portal/start?token=…' }),
    linkExpiresAt: DateTime,
    access: StringEnum(PORTAL_ACCESS),
    scope: StringEnum(['organization', 'project'] as const),
    projectId: Nullable(Uuid),
    lifetimeSeconds: Type.Integer(),
  },
  { additionalProperties: false },
);

/**
 * A live session of the organization as `GET /portal-sessions` lists it (docs/portal.md, "Ending a
 * session"): minted and still openable (`openedAt` and `expiresAt` null), or opened and unexpired.
 * No token: only their hashes are stored.
 */
export const PortalSession = Type.Object(
  {
    id: Uuid,
    apiKeyId: Type.String({ format: 'uuid', description: 'the key that minted the session: the session acts for it, narrowed' }),
    access: StringEnum(PORTAL_ACCESS),
    scope: StringEnum(['organization', 'project'] as const),
    projectId: Nullable(Uuid),
    createdAt: DateTime,
    linkExpiresAt: Type.String({
      format: 'date-time',
      pattern: YEAR_PATTERN,
      description: 'until when the one-time link can be opened, if it has not been',
    }),
    openedAt: Nullable(DateTime),
    expiresAt: Nullable(
      Type.String({
        format: 'date-time',
        pattern: YEAR_PATTERN,
        description: 'when the session ends; null until its link is opened',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * An origin a page embedding the portal may have: `https://host[:port]` (or `http://` for loopback
 * hosts in development). No path, no wildcard: CSP `frame-ancestors` sources, checked strictly.
 */
export const FRAME_ANCESTOR_PATTERN = '^(https://[a-z0-9.-]+(:[0-9]{1,5})?|http://(localhost|127\\.0\\.0\\.1)(:[0-9]{1,5})?)$';

export const PortalSettings = Type.Object(
  {
    frameAncestors: Type.Array(Type.String(), {
      description: 'origins allowed to embed the portal in an iframe (CSP frame-ancestors); empty: none',
    }),
    updatedAt: Nullable(DateTime),
  },
  { additionalProperties: false },
);

export const PortalSettingsUpdate = Body(
  {
    frameAncestors: Type.Array(Type.String({ pattern: FRAME_ANCESTOR_PATTERN, maxLength: 200 }), {
      maxItems: 20,
      uniqueItems: true,
    }),
  },
  { required: ['frameAncestors'] },
);
export type PortalSettingsUpdateBody = Static<typeof PortalSettingsUpdate>;
